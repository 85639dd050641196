// Every disclosure of patient data is in the audit trail, with the right patient: reads that trim the answer
// (`$select`, `$populate` with a nested `$select`) still name the stored document's patient and facility, so the
// patient sees them in their own view; realtime events sent to a member's socket are recorded as reads by that
// member (via realtime); a webhook's delivery to its receiver is recorded once (via webhook), and reading
// deliveries (GET /webhook-events) is recorded with the patients of their payloads.
import assert from 'node:assert/strict'
import {
  http,
  restClient,
  signUp,
  socketClient,
  startServer,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { startWebhookReceiver, type TestWebhookReceiver } from '../helpers/webhook-receiver'

const adminEmail = 'disclosure-admin@example.test'
const adminPassword = 'Admin password 1'

describe('audit trail: every disclosure, the right patient', function () {
  this.timeout(60000)
  let server: TestServer
  let owner: SignedUp // superadmin of the clinic
  let doctor: SignedUp // member of the clinic with the role 'doctor'
  let adminToken: string
  let receiver: TestWebhookReceiver

  /** The audit events `token` may read, newest first. */
  const events = async (token: string, query = '') => {
    const res = await http(server.url, 'GET', `/audit-events?$limit=100${query}`, { token })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.data as any[] // `as any`: JSON answers are untyped
  }

  /** A new patient and a record about them at the clinic, open to its doctors. */
  const patientWithRecord = async () => {
    const patient = await signUp(server.url)
    const created = await http(server.url, 'POST', '/medical-records', {
      token: owner.token,
      body: {
        type: 'allergy',
        facility: owner.organization.id,
        patient: patient.account.id,
        name: 'Peanuts',
        permissions: [{ organization: owner.organization.id, roles: ['doctor'] }]
      }
    })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    return { patient, record: created.body }
  }

  /** The patient's own view shows the doctor's read of `record`, with the patient and the facility. */
  const seenByPatient = async (patient: SignedUp, record: { id: string }) => {
    const theirs = await events(
      patient.token,
      `&patient=${patient.account.id}&action=read&service=medical-records`
    )
    const read = theirs.find((event) => event.actor === doctor.account.id && event.ids.includes(record.id))
    assert.ok(read, `the patient sees the doctor's read: ${JSON.stringify(theirs)}`)
    assert.equal(read.patient, patient.account.id)
    assert.equal(read.facility, owner.organization.id)
    // The clinic's superadmin sees it under the facility.
    const facility = await events(
      owner.token,
      `&facility=${owner.organization.id}&actor=${doctor.account.id}`
    )
    assert.ok(facility.some((event) => event.id === read.id))
    return read
  }

  before(async () => {
    server = await startServer({
      admin: { email: adminEmail, password: adminPassword },
      webhooks: { allowPrivate: true, retryDelaysMs: [100], timeoutMs: 2000, pollIntervalMs: 50 }
    })
    receiver = await startWebhookReceiver()
    const login = await http(server.url, 'POST', '/authentication', {
      body: { email: adminEmail, password: adminPassword }
    })
    adminToken = login.body.accessToken
    ;[owner, doctor] = await Promise.all([
      signUp(server.url, { organization: { name: 'Disclosure clinic', type: 'facility' } }),
      signUp(server.url)
    ])
    const member = await restClient(server.url, owner.token).post('/organization-members', {
      organization: owner.organization.id,
      uid: doctor.account.id,
      roles: ['doctor']
    })
    assert.equal(member.status, 201, JSON.stringify(member.body))
  })
  after(async () => {
    await server?.close()
    await receiver?.close()
  })

  /** A webhook on the doctor's account for created medical records; resolves with its id. */
  const doctorsWebhook = async () => {
    const created = await http(server.url, 'POST', '/webhook-events', {
      token: doctor.token,
      body: { account: doctor.account.id, url: receiver.url, events: 'medical-records.create' }
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    return created.body.id as string
  }

  /** Waits until `webhook`'s delivery of `record` is delivered; resolves with it (the doctor's read of it is recorded too). */
  const deliveredOf = async (webhook: string, record: { id: string }) => {
    let delivery: any
    await waitUntil(
      async () => {
        const res = await http(server.url, 'GET', `/webhook-events?webhook=${webhook}&$limit=50`, {
          token: doctor.token
        })
        delivery = res.body.data?.find(
          (one: any) => one.payload?.id === record.id && one.status === 'delivered'
        )
        return !!delivery
      },
      10000,
      'the delivery'
    )
    return delivery
  }

  describe('reads that trim the answer', () => {
    it('records a get with $select under the stored patient and facility, and answers only the selected fields', async () => {
      const { patient, record } = await patientWithRecord()
      const read = await http(server.url, 'GET', `/medical-records/${record.id}?$select[]=type`, {
        token: doctor.token
      })
      assert.equal(read.status, 200, JSON.stringify(read.body))
      assert.deepEqual(Object.keys(read.body).sort(), ['id', 'type'])
      await seenByPatient(patient, record)
    })

    it('records a find with $select under the stored patient and facility, and answers only the selected fields', async () => {
      const { patient, record } = await patientWithRecord()
      const found = await http(server.url, 'GET', `/medical-records?id=${record.id}&$select[]=createdAt`, {
        token: doctor.token
      })
      assert.equal(found.status, 200, JSON.stringify(found.body))
      assert.deepEqual(
        found.body.data.map((doc: any) => Object.keys(doc).sort()),
        [['createdAt', 'id']]
      )
      await seenByPatient(patient, record)
    })

    it('records the records a $populate with a nested $select disclosed, under their patient and facility', async () => {
      const { patient, record } = await patientWithRecord()
      const populate =
        '$populate[same][service]=medical-records&$populate[same][localKey]=id&$populate[same][$select][]=type'
      const read = await http(
        server.url,
        'GET',
        `/medical-records/${record.id}?$select[]=createdAt&${populate}`,
        { token: doctor.token, headers: { 'x-request-id': 'populate-select' } }
      )
      assert.equal(read.status, 200, JSON.stringify(read.body))
      assert.deepEqual(Object.keys(read.body.$populated.same).sort(), ['id', 'type'])
      assert.deepEqual(Object.keys(read.body).sort(), ['$populated', 'createdAt', 'id'])
      const theirs = (await events(patient.token, `&patient=${patient.account.id}&action=read`)).filter(
        (event) => event.requestId === 'populate-select'
      )
      // The outer read and the populated one, both under the patient and the facility.
      assert.equal(theirs.length, 2, JSON.stringify(theirs))
      assert.ok(
        theirs.every((event) => event.facility === owner.organization.id && event.actor === doctor.account.id)
      )
      await seenByPatient(patient, record)
    })
  })

  describe('realtime events', () => {
    it("records a record's realtime event sent to a member's socket as a read by that member, with the patient and facility", async () => {
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: doctor.token })
        const received: any[] = []
        socket.client.service('medical-records').on('created', (record: unknown) => received.push(record))
        const { patient, record } = await patientWithRecord()
        await waitUntil(() => received.some((event) => event.id === record.id), 5000, 'the created event')
        // (the record also made the patient one of the facility's patients: that event is a disclosure of its own)
        const theirs = (await events(patient.token, `&patient=${patient.account.id}&via=realtime`)).filter(
          (event) => event.service === 'medical-records'
        )
        assert.equal(theirs.length, 1, JSON.stringify(theirs))
        const [delivery] = theirs
        assert.equal(delivery.actor, doctor.account.id)
        assert.equal(delivery.action, 'read')
        assert.equal(delivery.service, 'medical-records')
        assert.deepEqual(delivery.ids, [record.id])
        assert.equal(delivery.facility, owner.organization.id)
        assert.equal(delivery.outcome, 'allowed')
        assert.equal(delivery.ip, '127.0.0.1')
        // The doctor sees it among their own actions, the clinic's superadmin under the facility.
        assert.ok(
          (await events(doctor.token, `&actor=${doctor.account.id}&via=realtime`)).some(
            (event) => event.id === delivery.id
          )
        )
        assert.ok(
          (await events(owner.token, `&facility=${owner.organization.id}&via=realtime`)).some(
            (event) => event.id === delivery.id
          )
        )
      } finally {
        socket.close()
      }
    })

    it('records nothing for a socket that receives nothing (a signed-in stranger)', async () => {
      const stranger = await signUp(server.url)
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: stranger.token })
        const { patient } = await patientWithRecord()
        const all = await events(adminToken, `&patient=${patient.account.id}`)
        assert.ok(
          all.every((event) => event.actor !== stranger.account.id),
          JSON.stringify(all)
        )
      } finally {
        socket.close()
      }
    })
  })

  describe('webhooks', () => {
    it("records a webhook's delivery of a record to its receiver once, via webhook, across a failed attempt and its retry", async () => {
      const webhook = await doctorsWebhook()
      const before = receiver.received.length
      receiver.respondWith((n) => (n === before + 1 ? 500 : 200))
      const { patient, record } = await patientWithRecord()
      const delivery = await deliveredOf(webhook, record)
      assert.equal(delivery.attempts, 2, 'a failed attempt, then the retry')
      assert.equal(receiver.received.filter((one) => one.body?.payload?.id === record.id).length, 2)
      const theirs = await events(patient.token, `&patient=${patient.account.id}&via=webhook`)
      assert.equal(theirs.length, 1, JSON.stringify(theirs))
      const [sent] = theirs
      assert.equal(sent.webhook, webhook)
      assert.equal(sent.actor, doctor.account.id, "an account's webhook: that account")
      assert.equal(sent.action, 'read')
      assert.equal(sent.service, 'medical-records')
      assert.deepEqual(sent.ids, [record.id])
      assert.equal(sent.facility, owner.organization.id)
      assert.equal(sent.requestId, delivery.id, 'the delivery id, as the receiver sees it in webhook-id')
      assert.ok(!JSON.stringify(sent).includes('Peanuts'), 'no contents')
      assert.equal(delivery.auditedAt, undefined, 'the audit mark stays on the server')
    })

    it('records a read of deliveries (find, get, with or without $select) with the patients of their payloads', async () => {
      const webhook = await doctorsWebhook()
      receiver.respondWith(() => 200)
      const first = await patientWithRecord()
      const second = await patientWithRecord()
      const delivery = await deliveredOf(webhook, first.record)
      await deliveredOf(webhook, second.record)
      const reads = [
        `/webhook-events?webhook=${webhook}&$select[]=status`,
        `/webhook-events/${delivery.id}?$select[]=status`
      ]
      for (const [index, path] of reads.entries()) {
        const res = await http(server.url, 'GET', path, {
          token: doctor.token,
          headers: { 'x-request-id': `delivery-read-${index}` }
        })
        assert.equal(res.status, 200, JSON.stringify(res.body))
      }
      for (const { patient, record } of [first, second]) {
        const theirs = await events(
          patient.token,
          `&patient=${patient.account.id}&via=rest&webhook=${webhook}`
        )
        assert.ok(
          theirs.every(
            (event) =>
              event.actor === doctor.account.id &&
              event.service === 'medical-records' &&
              event.facility === owner.organization.id
          )
        )
        assert.ok(theirs.every((event) => event.ids.length === 1 && event.ids[0] === record.id))
        const requests = theirs.map((event) => event.requestId)
        assert.ok(requests.includes('delivery-read-0'), `the find: ${JSON.stringify(theirs)}`)
        assert.equal(
          requests.includes('delivery-read-1'),
          record.id === first.record.id,
          'the get of the first delivery names its patient only'
        )
      }
    })
  })
})
