// The bytes of attachments, on both storage backends (the embedded store and S3 against a local s3rver), as clients
// move them: metadata over the Feathers client (Socket.IO), bytes over plain HTTP with the signed URLs, or one
// multipart call. The checks on the bytes (size, SHA-256, sniffed and declared type), the single-use and expiring
// upload URLs, downloads (reader, revoked share, stranger, tampered link, ranges) and their audit events.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import {
  startServer,
  restClient,
  signUp,
  socketClient,
  recordEvents,
  waitUntil,
  refusal,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { startS3, type TestS3 } from '../helpers/s3'
import { depsSlot } from '../../src/deps'
import {
  assertStatus,
  csv,
  fieldsOf,
  getBytes,
  html,
  pdf,
  png,
  putBytes,
  putHeadersOnly,
  sha256
} from './fixtures'

type Backend = 'embedded' | 's3'

for (const backend of ['embedded', 's3'] as Backend[]) {
  describe(`attachment bytes (${backend} storage)`, function () {
    this.timeout(60_000)
    let s3: TestS3 | undefined
    let server: TestServer
    let api: ReturnType<typeof restClient>
    let alice: SignedUp
    let bob: SignedUp
    let carol: SignedUp
    let record: any
    let aliceSocket: ReturnType<typeof socketClient>
    let bobSocket: ReturnType<typeof socketClient>
    // The app's clock, moved forward by the expiry tests.
    let shift = 0

    const attachments = (socket = aliceSocket): any => socket.client.service('attachments')

    /** Creates a pending attachment on the record over Socket.IO. */
    const createPending = async (bytes: Buffer, fields: Record<string, unknown> = {}) =>
      attachments().create({
        record: record.id,
        filename: 'scan.png',
        contentType: 'image/png',
        size: bytes.length,
        ...fields
      })

    /** PUTs the bytes to the upload URL and, on S3, asks the server to confirm them: what a client does. */
    const upload = async (pending: any, bytes: Buffer, contentType = pending.contentType) => {
      const put = await putBytes(pending.uploadUrl, bytes, contentType)
      if (backend === 'embedded') return put
      assertStatus(put, 200)
      try {
        return { status: 200, body: await attachments().patch(pending.id, { $confirmUpload: true }) }
      } catch (error: any) {
        return { status: error.code, body: error }
      }
    }

    const uploaded = async (bytes: Buffer, fields: Record<string, unknown> = {}) => {
      const pending = await createPending(bytes, fields)
      const answer = await upload(pending, bytes)
      assertStatus(answer, 200)
      return pending
    }

    const stored = (id: string) => server.app.service('attachments' as any)._get(id) as Promise<any>

    before(async () => {
      if (backend === 's3') s3 = await startS3()
      server = await startServer({
        clock: { now: () => Date.now() + shift },
        ...(s3 ? { attachments: { s3: s3.settings } } : {})
      } as any)
      api = restClient(server.url)
      alice = await signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } })
      bob = await signUp(server.url)
      carol = await signUp(server.url)
      const created = await api.post(
        '/medical-records',
        {
          type: 'attachment',
          facility: alice.organization.id,
          patient: 'patient-1',
          title: 'Referral',
          permissions: [{ uid: bob.account.id }]
        },
        { token: alice.token }
      )
      assert.ok(created.status < 300, JSON.stringify(created.body))
      record = created.body
      aliceSocket = socketClient(server.url)
      await aliceSocket.client.authenticate({ strategy: 'jwt', accessToken: alice.token })
      bobSocket = socketClient(server.url)
      await bobSocket.client.authenticate({ strategy: 'jwt', accessToken: bob.token })
    })
    after(async () => {
      aliceSocket?.close()
      bobSocket?.close()
      await server?.close()
      await s3?.close()
    })

    it('presigned flow: create over Socket.IO, PUT the bytes, the reader sees it ready and downloads them', async () => {
      const bytes = png(5000)
      const seen = recordEvents(bobSocket.client, 'attachments', ['patched'])
      const pending = await createPending(bytes, { sha256: sha256(bytes) })
      assert.equal(pending.status, 'pending')
      assert.equal(typeof pending.uploadUrl, 'string')
      assert.equal(pending.storageKey, undefined)
      if (backend === 's3') {
        // The bucket's presigned PUT, which the bucket itself lets expire with the upload's lifetime.
        assert.match(pending.uploadUrl, new RegExp(`^${s3!.endpoint}/${s3!.bucket}/uploads/${pending.id}\\?`))
        assert.equal(new URL(pending.uploadUrl).searchParams.get('X-Amz-Expires'), '600')
      } else
        assert.match(
          pending.uploadUrl,
          new RegExp(`^${server.url}/attachments/${pending.id}/content\\?token=`)
        )
      const answer = await upload(pending, bytes)
      assertStatus(answer, 200)
      assert.equal(answer.body.status, 'ready')
      assert.equal(answer.body.sha256, sha256(bytes))
      await waitUntil(
        () => seen.some((e) => e.data.id === pending.id && e.data.status === 'ready'),
        5000,
        'patched'
      )
      const event = seen.find((e) => e.data.id === pending.id)!
      assert.equal(event.data.storageKey, undefined)

      const got = await attachments(bobSocket).get(pending.id)
      assert.equal(got.status, 'ready')
      assert.equal(got.size, bytes.length)
      assert.equal(typeof got.downloadUrl, 'string')
      const download = await getBytes(got.downloadUrl)
      assertStatus(download, 200)
      assert.ok(download.bytes.equals(bytes))
      assert.equal(download.headers.get('content-type'), 'image/png')
      assert.equal(download.headers.get('content-length'), String(bytes.length))
      assert.equal(download.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(download.headers.get('accept-ranges'), 'bytes')
      assert.equal(
        download.headers.get('content-disposition'),
        `attachment; filename="scan.png"; filename*=UTF-8''scan.png`
      )
      if (backend === 's3')
        assert.ok(s3!.keys().includes(`attachments/${alice.organization.id}/${pending.id}`))
    })

    it('multipart flow: POST /attachments/upload with the fields then the file answers the ready attachment (201)', async () => {
      const bytes = csv()
      const form = new FormData()
      form.append('record', record.id)
      form.append('filename', 'glucose ü "results".csv')
      form.append('contentType', 'text/csv')
      form.append('size', String(bytes.length))
      form.append('title', 'Glucose')
      form.append('file', new Blob([bytes], { type: 'text/csv' }), 'glucose.csv')
      const response = await fetch(`${server.url}/attachments/upload`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${alice.token}` }
      })
      const body: any = await response.json()
      assert.equal(response.status, 201, JSON.stringify(body))
      assert.equal(body.status, 'ready')
      assert.equal(body.title, 'Glucose')
      assert.equal(body.sha256, sha256(bytes))
      const download = await getBytes(body.downloadUrl)
      assertStatus(download, 200)
      assert.ok(download.bytes.equals(bytes))
      assert.equal(download.headers.get('content-type'), 'text/csv')
      assert.equal(
        download.headers.get('content-disposition'),
        `attachment; filename="glucose _ _results_.csv"; filename*=UTF-8''glucose%20%C3%BC%20_results_.csv`
      )
    })

    it('multipart: a file before the fields, a missing bearer, or bytes that fail a check leave nothing behind', async () => {
      const before = (await server.app.service('attachments' as any)._find({ paginate: false })).length
      const fileFirst = new FormData()
      fileFirst.append('file', new Blob([pdf()], { type: 'application/pdf' }), 'a.pdf')
      fileFirst.append('record', record.id)
      let response = await fetch(`${server.url}/attachments/upload`, {
        method: 'POST',
        body: fileFirst,
        headers: { authorization: `Bearer ${alice.token}` }
      })
      let body: any = await response.json()
      assert.equal(response.status, 400, JSON.stringify(body))
      assert.match(body.message, /before the file|fields first/)

      const form = new FormData()
      form.append('record', record.id)
      form.append('contentType', 'application/pdf')
      form.append('size', String(png().length))
      form.append('file', new Blob([png()], { type: 'application/pdf' }), 'scan.pdf')
      response = await fetch(`${server.url}/attachments/upload`, { method: 'POST', body: form })
      assert.equal(response.status, 401)
      response = await fetch(`${server.url}/attachments/upload`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${alice.token}` }
      })
      body = await response.json()
      assert.equal(response.status, 415, JSON.stringify(body))
      assert.deepEqual(fieldsOf(body), ['contentType'])
      // A field after the file: refused, and the attachment the call created is gone again.
      const late = new FormData()
      late.append('record', record.id)
      late.append('contentType', 'application/pdf')
      late.append('size', String(pdf().length))
      late.append('file', new Blob([pdf()], { type: 'application/pdf' }), 'late.pdf')
      late.append('title', 'too late')
      response = await fetch(`${server.url}/attachments/upload`, {
        method: 'POST',
        body: late,
        headers: { authorization: `Bearer ${alice.token}` }
      })
      body = await response.json()
      assert.equal(response.status, 400, JSON.stringify(body))
      assert.match(body.message, /came after the file/)
      const after = (await server.app.service('attachments' as any)._find({ paginate: false })).length
      assert.equal(after, before)
      const tmp = path.join(server.dataDir, 'attachments', 'tmp')
      await waitUntil(
        () => !fs.existsSync(tmp) || fs.readdirSync(tmp).length === 0,
        5000,
        'no temp file left'
      )
    })

    it('refuses fewer bytes than declared (400) and more (413), naming size; the attachment stays pending', async () => {
      const bytes = pdf(2000)
      const short = await createPending(bytes, { contentType: 'application/pdf', filename: 'a.pdf' })
      let answer = await upload(short, bytes.subarray(0, 1000))
      assertStatus(answer, 400)
      assert.deepEqual(fieldsOf(answer.body), ['size'])
      assert.equal((await stored(short.id)).status, 'pending')
      const long = await createPending(bytes, { contentType: 'application/pdf', filename: 'a.pdf' })
      answer = await upload(long, Buffer.concat([bytes, Buffer.from('more')]))
      assertStatus(answer, 413)
      assert.deepEqual(fieldsOf(answer.body), ['size'])
      assert.equal((await stored(long.id)).status, 'pending')
    })

    it('refuses bytes whose SHA-256 differs from the declared one (400, sha256)', async () => {
      const bytes = pdf(100)
      const pending = await createPending(bytes, {
        contentType: 'application/pdf',
        filename: 'a.pdf',
        sha256: sha256(Buffer.from('something else'))
      })
      const answer = await upload(pending, bytes)
      assertStatus(answer, 400)
      assert.deepEqual(fieldsOf(answer.body), ['sha256'])
      assert.equal((await stored(pending.id)).status, 'pending')
    })

    it('refuses a PNG named and declared .pdf, and an HTML page declared image/png (415, contentType)', async () => {
      const image = png(10)
      const fake = await createPending(image, { contentType: 'application/pdf', filename: 'scan.pdf' })
      let answer = await upload(fake, image)
      assertStatus(answer, 415)
      assert.deepEqual(fieldsOf(answer.body), ['contentType'])
      assert.match(answer.body.message, /image\/png, not application\/pdf/)

      const page = html()
      const disguised = await createPending(page, { contentType: 'image/png', filename: 'x.png' })
      answer = await upload(disguised, page)
      assertStatus(answer, 415)
      assert.deepEqual(fieldsOf(answer.body), ['contentType'])
      // Markup is refused even declared as text.
      const asText = await createPending(page, { contentType: 'text/plain', filename: 'x.txt' })
      answer = await upload(asText, page)
      assertStatus(answer, 415)
      assert.equal((await stored(asText.id)).status, 'pending')
    })

    it('accepts UTF-8 text as text/plain or text/csv and a DICOM file; refuses binary bytes declared text/plain', async () => {
      const note = Buffer.from('Überweisung: Röntgen Thorax — bitte bis Freitag. 東京\n')
      await uploaded(note, { contentType: 'text/plain', filename: 'note.txt' })
      const dicom = Buffer.alloc(600, 1)
      dicom.write('DICM', 128)
      await uploaded(dicom, { contentType: 'application/dicom', filename: 'ct.dcm' })
      const binary = Buffer.from([0x41, 0x42, 0xff, 0xfe, 0x00, 0x43])
      const pending = await createPending(binary, { contentType: 'text/plain', filename: 'x.txt' })
      const answer = await upload(pending, binary)
      assertStatus(answer, 415)
      assert.deepEqual(fieldsOf(answer.body), ['contentType'])
    })

    it('an upload URL works once: a second PUT is a 409 and the kept bytes do not change', async () => {
      const bytes = pdf(300)
      const pending = await uploaded(bytes, { contentType: 'application/pdf', filename: 'a.pdf' })
      const other = pdf(301)
      if (backend === 'embedded') {
        const again = await putBytes(pending.uploadUrl, bytes)
        assertStatus(again, 409)
      } else {
        // The bucket takes the PUT (a presigned URL cannot be limited to one use), but the kept copy was made
        // when the upload was confirmed: confirming again answers the attachment as it is.
        assertStatus(await putBytes(pending.uploadUrl, other.subarray(0, bytes.length)), 200)
        const confirmed = await attachments().patch(pending.id, { $confirmUpload: true })
        assert.equal(confirmed.sha256, sha256(bytes))
      }
      const got = await attachments().get(pending.id)
      const download = await getBytes(got.downloadUrl)
      assert.ok(download.bytes.equals(bytes))
    })

    if (backend === 'embedded') {
      it('an expired upload URL is a 403, and a tampered one a 403', async () => {
        const bytes = pdf(10)
        const pending = await createPending(bytes, { contentType: 'application/pdf', filename: 'a.pdf' })
        const tampered = pending.uploadUrl.replace(
          /token=([^.]+)\.(.)/,
          (_m: string, p: string, c: string) => `token=${p}.${c === 'A' ? 'B' : 'A'}`
        )
        assertStatus(await putBytes(tampered, bytes), 403)
        shift += 11 * 60 * 1000
        try {
          const expired = await putBytes(pending.uploadUrl, bytes)
          assertStatus(expired, 403)
          assert.match(expired.body.message, /expired/)
        } finally {
          shift -= 11 * 60 * 1000
        }
      })

      it('two uploads of the same bytes share one file, kept until no attachment references it', async () => {
        const bytes = pdf(777)
        const first = await uploaded(bytes, { contentType: 'application/pdf', filename: 'a.pdf' })
        const second = await uploaded(bytes, { contentType: 'application/pdf', filename: 'b.pdf' })
        const file = path.join(server.dataDir, 'attachments', sha256(bytes).slice(0, 2), sha256(bytes))
        assert.equal((await stored(first.id)).storageKey, sha256(bytes))
        assert.equal((await stored(second.id)).storageKey, sha256(bytes))
        assert.ok(fs.existsSync(file))
        await attachments().remove(first.id)
        assert.ok(fs.existsSync(file))
        await attachments().remove(second.id)
        await waitUntil(() => !fs.existsSync(file), 5000, 'the shared file removed')
      })
    }

    it('a Content-Length over ATTACHMENT_MAX_BYTES (1 GB) is refused before any byte is read (413)', async () => {
      const bytes = pdf(10)
      const pending = await createPending(bytes, { contentType: 'application/pdf', filename: 'a.pdf' })
      if (backend === 'embedded') {
        const answer = await putHeadersOnly(pending.uploadUrl, 1024 * 1024 * 1024)
        assert.equal(answer.status, 413, answer.body)
        assert.match(answer.body, /"field":"size"/)
      }
      // The create itself refuses such a declared size.
      const error = await refusal(
        createPending(bytes, { contentType: 'application/pdf', size: 1024 * 1024 * 1024 })
      )
      assert.equal(error.code, 413)
    })

    it('downloads: a reader downloads, a range is a 206, an unsatisfiable range a 416; each read is audited', async () => {
      const bytes = pdf(4000)
      const pending = await uploaded(bytes, { contentType: 'application/pdf', filename: 'report.pdf' })
      const got = await attachments(bobSocket).get(pending.id)
      const part = await getBytes(got.downloadUrl, { range: 'bytes=100-199' })
      assertStatus(part, 206)
      assert.equal(part.headers.get('content-range'), `bytes 100-199/${bytes.length}`)
      assert.equal(part.headers.get('content-length'), '100')
      assert.ok(part.bytes.equals(bytes.subarray(100, 200)))
      const tail = await getBytes(got.downloadUrl, { range: 'bytes=-10' })
      assertStatus(tail, 206)
      assert.ok(tail.bytes.equals(bytes.subarray(bytes.length - 10)))
      const outside = await getBytes(got.downloadUrl, { range: `bytes=${bytes.length + 5}-` })
      assertStatus(outside, 416)

      await waitUntil(
        async () => {
          const events = await depsSlot.require(server.app).stores.auditEvents._find({
            query: { service: 'attachments', action: 'read', actor: bob.account.id },
            paginate: false
          })
          return (
            events.filter((e) => e.ids.includes(pending.id) && e.via === 'rest' && e.status === 206)
              .length === 2
          )
        },
        5000,
        'two audited range reads'
      )
      const events = await depsSlot.require(server.app).stores.auditEvents._find({
        query: { service: 'attachments', action: 'read', actor: bob.account.id },
        paginate: false
      })
      const mine = events.filter((e) => e.ids.includes(pending.id) && e.via === 'rest')
      assert.equal(mine[0].patient, 'patient-1')
      assert.equal(mine[0].facility, alice.organization.id)
      assert.equal(mine[0].ip, '127.0.0.1')
    })

    it('a download URL stops at once when the share is revoked (404); a stranger gets a 404; a tampered link a 403', async () => {
      const bytes = pdf(50)
      const pending = await uploaded(bytes, { contentType: 'application/pdf', filename: 'a.pdf' })
      const forBob = await attachments(bobSocket).get(pending.id)
      assertStatus(await getBytes(forBob.downloadUrl), 200)
      const tampered = forBob.downloadUrl.replace(/token=([^.]+)/, (_m: string, p: string) => {
        const payload = JSON.parse(Buffer.from(decodeURIComponent(p), 'base64url').toString())
        payload.a = carol.account.id
        return `token=${Buffer.from(JSON.stringify(payload)).toString('base64url')}`
      })
      assertStatus(await getBytes(tampered), 403)
      const stranger = socketClient(server.url)
      try {
        await stranger.client.authenticate({ strategy: 'jwt', accessToken: carol.token })
        const error = await refusal(stranger.client.service('attachments').get(pending.id))
        assert.equal(error.code, 404)
      } finally {
        stranger.close()
      }
      const revoked = await api.patch(
        `/medical-records/${record.id}`,
        { permissions: [] },
        { token: alice.token }
      )
      assertStatus(revoked, 200)
      const after = await getBytes(forBob.downloadUrl)
      assertStatus(after, 404)
      const again = await api.patch(
        `/medical-records/${record.id}`,
        { permissions: [{ uid: bob.account.id }] },
        { token: alice.token }
      )
      assertStatus(again, 200)
      assertStatus(await getBytes(forBob.downloadUrl), 200)
    })

    it('publishes the bytes routes in the OpenAPI document', async () => {
      const doc = (await api.get('/openapi.json')).body
      const content = doc.paths['/attachments/{id}/content']
      assert.ok(content.put.responses['409'] && content.put.responses['413'] && content.put.responses['415'])
      assert.ok(content.get.responses['206'] && content.get.responses['416'])
      const multipart = doc.paths['/attachments/upload'].post
      assert.ok(multipart.requestBody.content['multipart/form-data'])
      assert.equal(
        multipart.responses['201'].content['application/json'].schema.$ref,
        '#/components/schemas/Attachments'
      )
    })

    it('20 concurrent uploads all end ready with their own bytes', async () => {
      const files = Array.from({ length: 20 }, (_, i) => pdf(20_000 + (i % 10)))
      const pendings = await Promise.all(
        files.map((bytes, i) =>
          createPending(bytes, { contentType: 'application/pdf', filename: `f${i}.pdf` })
        )
      )
      const answers = await Promise.all(pendings.map((pending, i) => upload(pending, files[i])))
      for (const answer of answers) assertStatus(answer, 200)
      for (const [i, pending] of pendings.entries()) {
        const doc = await stored(pending.id)
        assert.equal(doc.status, 'ready')
        assert.equal(doc.sha256, sha256(files[i]))
      }
      const got = await attachments().get(pendings[13].id)
      assert.ok((await getBytes(got.downloadUrl)).bytes.equals(files[13]))
    })
  })
}
