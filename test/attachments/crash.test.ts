// A server killed (kill -9) in the middle of an upload: the half-written bytes are only ever in the temp folder,
// the next start removes them, and the attachment is still pending (its upload never completed), on the embedded
// store as on S3 (whose uploads through the server are staged in the same temp folder).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { restClient, signUp, tempDir, testMongoUrl, waitUntil } from '../helpers/app'
import { startChild, type ChildServer } from '../helpers/child'
import { startS3, type TestS3 } from '../helpers/s3'
import { pdf } from './fixtures'

const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((entry) =>
          entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]
        )
    : []

for (const backend of ['embedded', 's3'] as const) {
  describe(`attachments: kill -9 during an upload (${backend} storage)`, function () {
    this.timeout(120_000)
    let child: ChildServer | undefined
    let s3: TestS3 | undefined
    const dataDir = tempDir()
    const mongodb = testMongoUrl()

    after(async () => {
      await child?.kill('SIGKILL')
      await s3?.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    })

    it('leaves no half file and no ready attachment', async () => {
      if (backend === 's3') s3 = await startS3()
      const env = { DATA_DIR: dataDir, MONGODB_URL: mongodb, ...(s3?.env ?? {}) }
      child = await startChild(env)
      const owner = await signUp(child.url, { organization: { name: 'Clinic K', type: 'facility' } })
      const api = restClient(child.url, owner.token)
      const record = await api.post('/medical-records', {
        type: 'attachment',
        facility: owner.organization.id,
        patient: 'patient-1'
      })
      assert.ok(record.status < 300, JSON.stringify(record.body))
      const bytes = pdf(4 * 1024 * 1024)
      // Uploaded through the server in both modes (multipart), so the server holds the bytes as they arrive.
      const boundary = 'x-boundary-x'
      const head = Buffer.from(
        [
          ['record', record.body.id],
          ['filename', 'big.pdf'],
          ['contentType', 'application/pdf'],
          ['size', String(bytes.length)]
        ]
          .map(
            ([name, value]) =>
              `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
          )
          .join('') +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n` +
          'Content-Type: application/pdf\r\n\r\n'
      )
      const request = http.request(`${child.url}/attachments/upload`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${owner.token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + bytes.length + `\r\n--${boundary}--\r\n`.length)
        }
      })
      request.on('error', () => undefined)
      request.write(head)
      request.write(bytes.subarray(0, 1024 * 1024))
      const tmp = path.join(dataDir, 'attachments', 'tmp')
      await waitUntil(() => filesUnder(tmp).some((file) => fs.statSync(file).size > 0), 15_000, 'a temp file')
      await child.kill('SIGKILL')
      request.destroy()
      const half = filesUnder(tmp)
      assert.equal(half.length, 1, 'the interrupted upload left its temp file')
      assert.ok(fs.statSync(half[0]).size < bytes.length)

      child = await startChild(env)
      assert.deepEqual(filesUnder(tmp), [], 'the start removed the half file')
      assert.deepEqual(
        filesUnder(path.join(dataDir, 'attachments')).filter((file) => !file.startsWith(tmp)),
        [],
        'no kept file'
      )
      if (s3) assert.deepEqual(s3.keys(), [], 'no object in the bucket')
      const list = await restClient(child.url, owner.token).get(`/attachments?record=${record.body.id}`)
      assert.equal(list.status, 200, JSON.stringify(list.body))
      const docs = Array.isArray(list.body) ? list.body : list.body.data
      assert.ok(
        docs.every((doc: any) => doc.status === 'pending'),
        JSON.stringify(docs)
      )
    })
  })
}
