// The attachments service as clients meet it, over REST and Socket.IO: create on a record or an encounter (who may,
// what the body may hold, 413/415 before any byte), real uploads to the signed URL, reads and downloads by the
// record's readers only (a share taken away stops them at once), title changes, removal refused once the record is
// finalized, the record's and the encounter's removal taking their files and bytes, expired uploads removed by the
// time-driven pass, realtime events to readers only (without the upload URL), the audit trail, the storage totals
// and the subscription's storage limit under twenty concurrent creates.
import assert from 'node:assert/strict'
import {
  recordEvents,
  refusal,
  restClient,
  socketClient,
  startServer,
  waitUntil,
  type TestServer
} from '../../helpers/app'
import { setupFacility, type FacilityFixture } from '../../helpers/billing'
import { signUp, type SignedUp } from '../../helpers/app'
import { LONG_SESSIONS } from '../../helpers/subscriptions'
import { depsSlot } from '../../../src/deps'
import { startWebhookReceiver } from '../../helpers/webhook-receiver'
import { attachmentsPass } from '../../../src/attachments/recovery'
import { fieldsOf, getBytes, pdf, putBytes, sha256 } from '../../attachments/fixtures'

const NOW = Date.UTC(2027, 2, 5, 12, 0)

describe('attachments service', function () {
  this.timeout(120000)
  let server: TestServer
  let facility: FacilityFixture
  let patient: SignedUp
  let now = NOW
  const api = (token?: string) => restClient(server.url, token)
  const deps = () => depsSlot.require(server.app)

  /** A record of the patient at the facility: written by physicians, read by the patient. */
  const newRecord = async (extra: Record<string, unknown> = {}) => {
    const res = await api(facility.member.token).post('/medical-records', {
      type: 'attachment',
      facility: facility.id,
      patient: patient.account.id,
      title: 'Referral',
      permissions: [
        { organization: facility.id, roles: ['physician'], write: true },
        { uid: patient.account.id }
      ],
      ...extra
    })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body
  }
  const declare = (parent: Record<string, string>, bytes: Buffer, extra: Record<string, unknown> = {}) => ({
    ...parent,
    filename: 'scan.pdf',
    contentType: 'application/pdf',
    size: bytes.length,
    sha256: sha256(bytes),
    ...extra
  })
  /** A ready file: created by the physician and its bytes PUT to the signed URL. */
  const readyFile = async (parent: Record<string, string>, bytes = pdf(100)) => {
    const created = await api(facility.member.token).post('/attachments', declare(parent, bytes))
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const put = await putBytes(created.body.uploadUrl, bytes, 'application/pdf')
    assert.equal(put.status, 200, JSON.stringify(put.body))
    return created.body
  }
  const connect = async (token: string) => {
    const socket = socketClient(server.url)
    await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
    return socket
  }

  before(async () => {
    server = await startServer({
      clock: { now: () => now },
      sessions: LONG_SESSIONS,
      webhooks: {
        allowPrivate: true,
        retryDelaysMs: [],
        timeoutMs: 2000,
        pollIntervalMs: 50,
        leaseMarginMs: 30000
      }
    })
    facility = await setupFacility(server.url, 'Files clinic')
    patient = await signUp(server.url)
  })
  afterEach(() => {
    now = NOW
  })
  after(() => server.close())

  describe('create', () => {
    it('answers a pending file with its upload URL; facility and patient come from the record', async () => {
      const record = await newRecord()
      const bytes = pdf(10)
      const res = await api(facility.member.token).post('/attachments', declare({ record: record.id }, bytes))
      assert.equal(res.status, 201, JSON.stringify(res.body))
      const att = res.body
      assert.equal(att.status, 'pending')
      assert.equal(att.organization, facility.id)
      assert.equal(att.patient, patient.account.id)
      assert.equal(att.record, record.id)
      assert.equal(att.uploadExpiresAt, NOW + 600000)
      assert.equal(typeof att.uploadUrl, 'string')
      assert.equal(att.storageKey, undefined)
      assert.equal(att.createdBy, facility.member.account.id)
    })

    it('refuses server-owned and unknown fields (400 naming them), a 1 GB size (413), a type off the list (415)', async () => {
      const record = await newRecord()
      const base = declare({ record: record.id }, pdf(10))
      for (const field of [
        'organization',
        'patient',
        'status',
        'storageKey',
        'uploadExpiresAt',
        'readyAt',
        'id'
      ]) {
        const res = await api(facility.member.token).post('/attachments', { ...base, [field]: 'x' })
        assert.equal(res.status, 400, field)
        assert.deepEqual(fieldsOf(res.body), [field])
        assert.match(res.body.message, /set by the server/)
      }
      const unknown = await api(facility.member.token).post('/attachments', { ...base, colour: 'red' })
      assert.equal(unknown.status, 400)
      assert.deepEqual(fieldsOf(unknown.body), ['colour'])
      const huge = await api(facility.member.token).post('/attachments', { ...base, size: 1024 ** 3 })
      assert.equal(huge.status, 413, JSON.stringify(huge.body))
      assert.deepEqual(fieldsOf(huge.body), ['size'])
      const htmlFile = await api(facility.member.token).post('/attachments', {
        ...base,
        contentType: 'text/html'
      })
      assert.equal(htmlFile.status, 415, JSON.stringify(htmlFile.body))
      assert.deepEqual(fieldsOf(htmlFile.body), ['contentType'])
      for (const body of [
        { ...base, encounter: 'e1' },
        { filename: 'a.pdf', contentType: 'application/pdf', size: 3 }
      ]) {
        const res = await api(facility.member.token).post('/attachments', body)
        assert.equal(res.status, 400, JSON.stringify(res.body))
        assert.deepEqual(fieldsOf(res.body), ['record'])
      }
      for (const [field, value] of [
        ['size', 0],
        ['size', 1.5],
        ['filename', ''],
        ['filename', 'x'.repeat(256)],
        ['sha256', 'ABC'],
        ['title', 'x'.repeat(201)]
      ] as const) {
        const res = await api(facility.member.token).post('/attachments', { ...base, [field]: value })
        assert.equal(res.status, 400, `${field}=${String(value)}`)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
    })

    it('needs the record write grant: a reader gets 403, a member without the role and a stranger 404', async () => {
      const record = await newRecord()
      const body = declare({ record: record.id }, pdf(10))
      assert.equal((await api(patient.token).post('/attachments', body)).status, 403)
      for (const who of [facility.biller, facility.stranger]) {
        const res = await api(who.token).post('/attachments', body)
        assert.equal(res.status, 404, JSON.stringify(res.body))
        assert.deepEqual(fieldsOf(res.body), ['record'])
      }
      assert.equal((await api().post('/attachments', body)).status, 401)
    })

    it('over Socket.IO too, and the created event reaches the record readers without the upload URL', async () => {
      const record = await newRecord()
      const [writer, reader, outsider] = await Promise.all(
        [facility.member, patient, facility.stranger].map((who) => connect(who.token))
      )
      try {
        const seen = {
          reader: recordEvents(reader.client, 'attachments'),
          outsider: recordEvents(outsider.client, 'attachments')
        }
        const att: any = await writer.client
          .service('attachments')
          .create(declare({ record: record.id }, pdf(5)))
        assert.equal(att.status, 'pending')
        assert.equal(typeof att.uploadUrl, 'string')
        await waitUntil(() => seen.reader.some((e) => e.data.id === att.id), 5000, 'created event')
        const created = seen.reader.find((e) => e.data.id === att.id)
        assert.equal(created?.event, 'created')
        assert.equal(created?.data.uploadUrl, undefined)
        assert.equal(created?.data.storageKey, undefined)
        const error = await refusal(
          outsider.client.service('attachments').create(declare({ record: record.id }, pdf(5)))
        )
        assert.equal(error.code, 404)
        await api(facility.member.token).patch(`/attachments/${att.id}`, { title: 'Renamed' })
        await waitUntil(() => seen.reader.some((e) => e.event === 'patched'), 5000, 'patched event')
        await writer.client.service('attachments').remove(att.id)
        await waitUntil(() => seen.reader.some((e) => e.event === 'removed'), 5000, 'removed event')
        assert.equal(seen.outsider.length, 0)
      } finally {
        for (const socket of [writer, reader, outsider]) socket.close()
      }
    })
  })

  describe('reading', () => {
    it('readers get metadata and a download URL; the bytes come back; strangers get 404 and nothing in finds', async () => {
      const record = await newRecord()
      const bytes = pdf(300)
      const att = await readyFile({ record: record.id }, bytes)
      const got = await api(patient.token).get(`/attachments/${att.id}`)
      assert.equal(got.status, 200, JSON.stringify(got.body))
      assert.equal(got.body.status, 'ready')
      assert.equal(got.body.storageKey, undefined)
      assert.equal(got.body.uploadUrl, undefined)
      assert.ok(got.body.downloadExpiresAt > NOW)
      const download = await getBytes(got.body.downloadUrl)
      assert.equal(download.status, 200)
      assert.ok(download.bytes.equals(bytes))
      for (const query of [`record=${record.id}`, `patient=${patient.account.id}`]) {
        const found = await api(patient.token).get(`/attachments?${query}`)
        assert.equal(found.status, 200)
        assert.ok(found.body.data.some((a: any) => a.id === att.id && a.downloadUrl))
      }
      for (const who of [facility.stranger, facility.biller]) {
        assert.equal((await api(who.token).get(`/attachments/${att.id}`)).status, 404)
        const found = await api(who.token).get(`/attachments?record=${record.id}`)
        assert.equal(found.status, 200)
        assert.equal(found.body.total, 0)
      }
      // Over Socket.IO as well.
      const socket = await connect(patient.token)
      try {
        const viaSocket: any = await socket.client.service('attachments').get(att.id)
        assert.equal(viaSocket.id, att.id)
        const page: any = await socket.client.service('attachments').find({ query: { record: record.id } })
        assert.equal(page.total, 1)
      } finally {
        socket.close()
      }
      const operator = await api(patient.token).get(
        `/attachments?recordAccess.createdBy=${facility.member.account.id}`
      )
      assert.equal(operator.status, 400)
    })

    it('the record answers list its ready files; finds of records too', async () => {
      const record = await newRecord()
      const att = await readyFile({ record: record.id })
      await api(facility.member.token).post('/attachments', declare({ record: record.id }, pdf(1)))
      const got = await api(patient.token).get(`/medical-records/${record.id}`)
      assert.deepEqual(got.body.attachments, [
        { id: att.id, filename: 'scan.pdf', contentType: 'application/pdf', size: att.size }
      ])
      const found = await api(patient.token).get(`/medical-records?patient=${patient.account.id}&$limit=50`)
      const listed = found.body.data.find((r: any) => r.id === record.id)
      assert.equal(listed.attachments.length, 1)
      assert.ok(found.body.data.every((r: any) => Array.isArray(r.attachments)))
    })

    it('a share taken away stops the reader at once: get 404, find empty, download URL refused', async () => {
      const record = await newRecord()
      const att = await readyFile({ record: record.id })
      const got = await api(patient.token).get(`/attachments/${att.id}`)
      const unshared = await api(facility.member.token).patch(`/medical-records/${record.id}`, {
        permissions: [{ organization: facility.id, roles: ['physician'], write: true }]
      })
      assert.equal(unshared.status, 200, JSON.stringify(unshared.body))
      assert.equal((await api(patient.token).get(`/attachments/${att.id}`)).status, 404)
      assert.equal((await api(patient.token).get(`/attachments?record=${record.id}`)).body.total, 0)
      const download = await getBytes(got.body.downloadUrl)
      assert.ok([403, 404].includes(download.status), String(download.status))
      // Shared again: readable again.
      await api(facility.member.token).patch(`/medical-records/${record.id}`, {
        permissions: [
          { organization: facility.id, roles: ['physician'], write: true },
          { uid: patient.account.id }
        ]
      })
      assert.equal((await api(patient.token).get(`/attachments?record=${record.id}`)).body.total, 1)
    })

    it("at start-up, files whose copy of the record's grants fell behind (a crash) are brought in step", async () => {
      const record = await newRecord()
      const att = await readyFile({ record: record.id })
      // As a process dying between the record's change and the copy's update would leave it: the patient missing.
      await deps().stores.attachments._patch(att.id, {
        recordAccess: { createdBy: facility.member.account.id, permissions: [] }
      })
      assert.equal((await api(patient.token).get(`/attachments?record=${record.id}`)).body.total, 0)
      const { regranted } = await attachmentsPass(deps(), 'startup')
      assert.ok(regranted >= 1)
      assert.equal((await api(patient.token).get(`/attachments?record=${record.id}`)).body.total, 1)
    })

    it("organization webhooks get the encounter files' events, never the record files' (as for their parents)", async () => {
      const receiver = await startWebhookReceiver()
      try {
        const hook = await api(facility.owner.token).post('/webhook-events', {
          organization: facility.id,
          url: receiver.url,
          events: 'attachments',
          active: true
        })
        assert.equal(hook.status, 201, JSON.stringify(hook.body))
        receiver.setSecret(hook.body.secret)
        const record = await newRecord()
        const encounter = await api(facility.member.token).post('/medical-encounters', {
          facility: facility.id,
          patient: patient.account.id
        })
        const onRecord = await api(facility.member.token).post(
          '/attachments',
          declare({ record: record.id }, pdf(2))
        )
        const onEncounter = await api(facility.member.token).post(
          '/attachments',
          declare({ encounter: encounter.body.id }, pdf(2))
        )
        await receiver.waitForCount(1)
        const deliveries = await api(facility.owner.token).get(`/webhook-events?webhook=${hook.body.id}`)
        const ids = deliveries.body.data.map((d: any) => d.payload?.id)
        assert.ok(ids.includes(onEncounter.body.id), JSON.stringify(deliveries.body))
        assert.ok(!ids.includes(onRecord.body.id))
        assert.equal(receiver.received[0].body.payload.id, onEncounter.body.id)
        assert.equal(receiver.received[0].body.payload.uploadUrl, undefined)
        assert.equal(receiver.received[0].body.payload.storageKey, undefined)
      } finally {
        await receiver.close()
      }
    })

    it('writes an audit event with the patient for every get and find', async () => {
      const record = await newRecord()
      const att = await readyFile({ record: record.id })
      await api(facility.member.token).get(`/attachments/${att.id}`)
      const res = await api(patient.token).get('/audit-events?service=attachments&$limit=200')
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const reads = res.body.data.filter(
        (e: any) => e.action === 'read' && e.ids.includes(att.id) && e.actor === facility.member.account.id
      )
      assert.ok(reads.length >= 1)
      assert.ok(reads.every((e: any) => e.patient === patient.account.id && e.facility === facility.id))
    })
  })

  describe('changing and removing', () => {
    it('patches the title only; readers get 403; other fields 400', async () => {
      const record = await newRecord()
      const att = await readyFile({ record: record.id })
      const ok = await api(facility.member.token).patch(`/attachments/${att.id}`, { title: 'Lab PDF' })
      assert.equal(ok.status, 200, JSON.stringify(ok.body))
      assert.equal(ok.body.title, 'Lab PDF')
      for (const field of ['filename', 'status', 'size', 'record']) {
        const res = await api(facility.member.token).patch(`/attachments/${att.id}`, { [field]: 'x' })
        assert.equal(res.status, 400, field)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
      assert.equal((await api(patient.token).patch(`/attachments/${att.id}`, { title: 'x' })).status, 403)
      assert.equal((await api(patient.token).delete(`/attachments/${att.id}`)).status, 403)
      assert.equal((await api(facility.stranger.token).delete(`/attachments/${att.id}`)).status, 404)
      assert.equal((await api(facility.member.token).delete('/attachments')).status, 405)
    })

    it('removes a file while the record is open; 409 naming finalizedAt once it is finalized', async () => {
      const record = await newRecord()
      const first = await readyFile({ record: record.id }, pdf(11))
      const second = await readyFile({ record: record.id }, pdf(12))
      const removed = await api(facility.member.token).delete(`/attachments/${first.id}`)
      assert.equal(removed.status, 200, JSON.stringify(removed.body))
      assert.equal((await api(facility.member.token).get(`/attachments/${first.id}`)).status, 404)
      await api(facility.member.token).patch(`/medical-records/${record.id}`, { finalize: true })
      const refused = await api(facility.member.token).delete(`/attachments/${second.id}`)
      assert.equal(refused.status, 409, JSON.stringify(refused.body))
      assert.deepEqual(fieldsOf(refused.body), ['finalizedAt'])
      const late = await api(facility.member.token).post(
        '/attachments',
        declare({ record: record.id }, pdf(1))
      )
      assert.equal(late.status, 409)
    })

    it('removing the record removes its files and their bytes', async () => {
      const record = await newRecord()
      const att = await readyFile({ record: record.id }, pdf(4321))
      const stored = await deps().stores.attachments._get(att.id)
      assert.equal(await deps().blobs.size(stored.storageKey as string), stored.size)
      const gone = await api(facility.member.token).delete(`/medical-records/${record.id}`)
      assert.equal(gone.status, 200, JSON.stringify(gone.body))
      assert.equal(gone.body.deletingAt, undefined)
      assert.equal((await api(facility.member.token).get(`/attachments/${att.id}`)).status, 404)
      assert.equal(await deps().blobs.size(stored.storageKey as string), null)
    })

    it('removing a draft encounter removes its files; members of the facility read and write them', async () => {
      const encounter = await api(facility.member.token).post('/medical-encounters', {
        facility: facility.id,
        patient: patient.account.id
      })
      assert.equal(encounter.status, 201, JSON.stringify(encounter.body))
      const att = await readyFile({ encounter: encounter.body.id })
      assert.equal(att.organization, facility.id)
      assert.equal((await api(facility.biller.token).get(`/attachments/${att.id}`)).status, 200)
      assert.equal((await api(facility.stranger.token).get(`/attachments/${att.id}`)).status, 404)
      assert.equal((await api(patient.token).get(`/attachments/${att.id}`)).status, 404)
      const found = await api(facility.owner.token).get(`/attachments?encounter=${encounter.body.id}`)
      assert.equal(found.body.total, 1)
      const removed = await api(facility.member.token).delete(`/medical-encounters/${encounter.body.id}`)
      assert.equal(removed.status, 200, JSON.stringify(removed.body))
      assert.equal((await api(facility.member.token).get(`/attachments/${att.id}`)).status, 404)
    })

    it("a finalized encounter's files stay: remove 409 naming finalizedAt", async () => {
      const encounter = await api(facility.member.token).post('/medical-encounters', {
        facility: facility.id,
        patient: patient.account.id
      })
      const att = await readyFile({ encounter: encounter.body.id })
      const finalized = await api(facility.owner.token).patch(`/medical-encounters/${encounter.body.id}`, {
        finalize: true
      })
      assert.equal(finalized.status, 200, JSON.stringify(finalized.body))
      const refused = await api(facility.member.token).delete(`/attachments/${att.id}`)
      assert.equal(refused.status, 409, JSON.stringify(refused.body))
      assert.deepEqual(fieldsOf(refused.body), ['finalizedAt'])
    })

    it('an upload that never came is removed by the time-driven pass once its URL expired', async () => {
      const record = await newRecord()
      const res = await api(facility.member.token).post(
        '/attachments',
        declare({ record: record.id }, pdf(3))
      )
      const ready = await readyFile({ record: record.id })
      now = NOW + 600000 + 1
      await deps().passes.runAll()
      assert.equal((await api(facility.member.token).get(`/attachments/${res.body.id}`)).status, 404)
      assert.equal((await api(facility.member.token).get(`/attachments/${ready.id}`)).status, 200)
    })
  })

  describe('storage', () => {
    it('answers the totals per facility to its staff; patients and strangers get 403', async () => {
      const record = await newRecord()
      await readyFile({ record: record.id }, pdf(1000))
      const res = await api(facility.owner.token).get('/attachments?$analytics=storage')
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const row = res.body.find((r: any) => r.organization === facility.id)
      const expected = await deps().stores.attachments._find({
        query: { organization: facility.id },
        paginate: false
      })
      assert.deepEqual(row, {
        organization: facility.id,
        bytes: expected.reduce((sum, a) => sum + a.size, 0),
        count: expected.length
      })
      const byMember = await api(facility.member.token).get(
        `/attachments?$analytics=storage&organization=${facility.id}`
      )
      assert.equal(byMember.status, 200, JSON.stringify(byMember.body))
      assert.deepEqual(byMember.body, [row])
      for (const who of [patient, facility.stranger]) {
        const refused = await api(who.token).get(
          `/attachments?$analytics=storage&organization=${facility.id}`
        )
        assert.equal(refused.status, 403, JSON.stringify(refused.body))
      }
    })

    it("refuses with 402 naming storageMax past the subscription's limit; twenty concurrent creates never overshoot", async () => {
      const other = await setupFacility(server.url, 'Small clinic')
      const record = await api(other.member.token).post('/medical-records', {
        type: 'attachment',
        facility: other.id,
        patient: patient.account.id,
        permissions: [{ organization: other.id, write: true }]
      })
      // The free package's limit lowered to 1 MiB for this test (storageMax counts MiB).
      const [free] = await deps().stores.packages._find({ query: { key: 'free' }, paginate: false })
      await deps().stores.packages._patch(free.id, { 'products.storageMax.base': 1 })
      try {
        const size = 100 * 1024
        const body = { record: record.body.id, filename: 'x.pdf', contentType: 'application/pdf', size }
        const socket = await connect(other.member.token)
        try {
          const answers = await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              i % 2
                ? api(other.member.token)
                    .post('/attachments', body)
                    .then((r) => r.status)
                : socket.client
                    .service('attachments')
                    .create(body)
                    .then(() => 201)
                    .catch((error: any) => error.code)
            )
          )
          assert.equal(answers.filter((s) => s === 201).length, 10, JSON.stringify(answers))
          assert.equal(answers.filter((s) => s === 402).length, 10, JSON.stringify(answers))
        } finally {
          socket.close()
        }
        const refused = await api(other.member.token).post('/attachments', body)
        assert.equal(refused.status, 402)
        assert.equal(refused.body.data.feature, 'storageMax')
        const usage = await api(other.owner.token).get(
          `/attachments?$analytics=storage&organization=${other.id}`
        )
        assert.deepEqual(usage.body, [{ organization: other.id, bytes: 10 * size, count: 10 }])
      } finally {
        await deps().stores.packages._patch(free.id, {
          'products.storageMax.base': free.products.storageMax.base
        })
      }
    })
  })
})
