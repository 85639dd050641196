// Queues over HTTP and Socket.IO: defaults, who manages and who reads, one default per facility (409 naming
// `default` and the current default), and `PATCH { $callNext: true }` calling the lowest waiting number — two
// simultaneous calls call two different items.
import assert from 'node:assert/strict'
import { refusal, restClient, startServer, type TestServer } from '../../helpers/app'
import { fieldsOf } from '../../helpers/billing'
import { setupClinic, type ClinicFixture } from '../../helpers/appointments'
import { LONG_SESSIONS } from '../../helpers/subscriptions'
import { addItem, connect, createQueue } from '../../queues/fixtures'

describe('queues', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  const api = (token?: string) => restClient(server.url, token)

  before(async () => {
    server = await startServer({ sessions: LONG_SESSIONS })
    clinic = await setupClinic(server.url)
  })
  after(() => server.close())

  describe('managing', () => {
    it('creates a queue with defaults (active, not default) and server fields; no default key is shown', async () => {
      const queue = await createQueue(server.url, clinic, { name: 'Front desk' })
      assert.equal(queue.name, 'Front desk')
      assert.equal(queue.facility, clinic.id)
      assert.equal(queue.active, true)
      assert.equal(queue.default, false)
      assert.equal(queue.createdBy, clinic.scheduler.account.id)
      assert.equal(typeof queue.updatedAt, 'number')
      assert.equal(queue.defaultKey, undefined)
      const read = await api(clinic.member.token).get(`/queues/${queue.id}`)
      assert.equal(read.status, 200)
      assert.equal(read.body.defaultKey, undefined)
    })

    it('staff create and change queues; a plain member gets 403, a stranger 404; members read, strangers do not', async () => {
      const byOwner = await api(clinic.owner.token).post('/queues', { facility: clinic.id, name: 'Lab' })
      assert.equal(byOwner.status, 201, JSON.stringify(byOwner.body))
      const body = { facility: clinic.id, name: 'X' }
      assert.equal((await api(clinic.member.token).post('/queues', body)).status, 403)
      assert.equal((await api(clinic.provider.token).post('/queues', body)).status, 403)
      assert.equal((await api(clinic.stranger.token).post('/queues', body)).status, 404)
      assert.equal((await api(clinic.patient.token).post('/queues', body)).status, 404)
      assert.equal((await api().post('/queues', body)).status, 401)
      const renamed = await api(clinic.scheduler.token).patch(`/queues/${byOwner.body.id}`, {
        name: 'Laboratory'
      })
      assert.equal(renamed.status, 200)
      assert.equal(renamed.body.name, 'Laboratory')
      assert.equal(
        (await api(clinic.member.token).patch(`/queues/${byOwner.body.id}`, { name: 'x' })).status,
        403
      )
      for (const who of [clinic.stranger, clinic.patient]) {
        assert.equal((await api(who.token).get(`/queues/${byOwner.body.id}`)).status, 404)
        assert.equal((await api(who.token).patch(`/queues/${byOwner.body.id}`, { name: 'x' })).status, 404)
        assert.equal((await api(who.token).get(`/queues?facility=${clinic.id}`)).body.total, 0)
      }
      const listed = await api(clinic.provider.token).get(`/queues?facility=${clinic.id}`)
      assert.ok(listed.body.data.some((q: any) => q.id === byOwner.body.id))
      const retired = await api(clinic.owner.token).patch(`/queues/${byOwner.body.id}`, { active: false })
      assert.equal(retired.body.active, false)
      assert.equal((await api(clinic.owner.token).delete(`/queues/${byOwner.body.id}`)).status, 405)
    })

    it('answers 400 naming the field for server-owned or unknown fields and bad values', async () => {
      for (const [body, field] of [
        [{ facility: clinic.id, name: 'x', defaultKey: 'y' }, 'defaultKey'],
        [{ facility: clinic.id, name: 'x', lastTicket: 3 }, 'lastTicket'],
        [{ facility: clinic.id, name: 'x', createdBy: 'y' }, 'createdBy'],
        [{ facility: clinic.id, name: '' }, 'name'],
        [{ facility: clinic.id }, 'name'],
        [{ facility: clinic.id, name: 'x', default: 'yes' }, 'default']
      ] as const) {
        const res = await api(clinic.scheduler.token).post('/queues', body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(fieldsOf(res.body), [field])
      }
      const queue = await createQueue(server.url, clinic)
      for (const [body, field] of [
        [{ facility: 'other' }, 'facility'],
        [{ ticketDay: '2027-01-01' }, 'ticketDay'],
        [{ $callNext: false }, '$callNext'],
        [{ $callNext: true, name: 'x' }, 'name'],
        [{ $inc: { lastTicket: 1 } }, '$inc']
      ] as const) {
        const res = await api(clinic.scheduler.token).patch(`/queues/${queue.id}`, body)
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`)
        assert.deepEqual(fieldsOf(res.body), [field], JSON.stringify(body))
      }
    })
  })

  describe('the default queue', () => {
    let other: ClinicFixture
    before(async () => {
      other = await setupClinic(server.url)
    })

    it('allows one default per facility: a second is a 409 naming default and the current default queue', async () => {
      const first = await createQueue(server.url, other, { default: true })
      assert.equal(first.default, true)
      const second = await api(other.scheduler.token).post('/queues', {
        facility: other.id,
        name: 'Second',
        default: true
      })
      assert.equal(second.status, 409, JSON.stringify(second.body))
      assert.deepEqual(fieldsOf(second.body), ['default'])
      assert.equal(second.body.data.queue, first.id)
      assert.match(second.body.message, new RegExp(first.id))
      const plain = await createQueue(server.url, other)
      const promote = await api(other.scheduler.token).patch(`/queues/${plain.id}`, { default: true })
      assert.equal(promote.status, 409)
      assert.equal(promote.body.data.queue, first.id)
      // Another facility has its own default.
      await createQueue(server.url, clinic, { default: true })
      // Releasing the default lets another queue take it.
      const released = await api(other.scheduler.token).patch(`/queues/${first.id}`, { default: false })
      assert.equal(released.body.default, false)
      const taken = await api(other.scheduler.token).patch(`/queues/${plain.id}`, { default: true })
      assert.equal(taken.status, 200, JSON.stringify(taken.body))
      assert.equal(taken.body.default, true)
      // The same queue again is no conflict.
      assert.equal(
        (await api(other.scheduler.token).patch(`/queues/${plain.id}`, { default: true })).status,
        200
      )
    })

    it('of ten simultaneous default queues of one facility, exactly one is created, the others 409', async () => {
      const third = await setupClinic(server.url)
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          api(third.scheduler.token)
            .post('/queues', { facility: third.id, name: `Desk ${i}`, default: true })
            .then((res) => res.status)
        )
      )
      assert.equal(outcomes.filter((code) => code === 201).length, 1, outcomes.join(','))
      assert.deepEqual(
        outcomes.filter((code) => code !== 201),
        Array(9).fill(409)
      )
      const defaults = await api(third.scheduler.token).get(`/queues?facility=${third.id}&default=true`)
      assert.equal(defaults.body.total, 1)
    })
  })

  describe('$callNext', () => {
    it('calls the lowest waiting number and answers that item; nobody waiting is a 409', async () => {
      const queue = await createQueue(server.url, clinic)
      const first = await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
      const second = await addItem(server.url, clinic, queue.id, clinic.member.account.id)
      const called = await api(clinic.scheduler.token).patch(`/queues/${queue.id}`, { $callNext: true })
      assert.equal(called.status, 200, JSON.stringify(called.body))
      assert.deepEqual([called.body.id, called.body.number, called.body.status], [first.id, 1, 'called'])
      assert.equal(called.body.calledBy, clinic.scheduler.account.id)
      assert.equal(called.body.position, undefined)
      assert.equal(called.body.appointmentKey, undefined)
      const remaining = await api(clinic.scheduler.token).get(`/queue-items/${second.id}`)
      assert.equal(remaining.body.position, 1)
      const next = await api(clinic.owner.token).patch(`/queues/${queue.id}`, { $callNext: true })
      assert.equal(next.body.id, second.id)
      const none = await api(clinic.scheduler.token).patch(`/queues/${queue.id}`, { $callNext: true })
      assert.equal(none.status, 409)
      assert.match(none.body.message, /No one is waiting/)
      assert.equal(
        (await api(clinic.member.token).patch(`/queues/${queue.id}`, { $callNext: true })).status,
        403
      )
      assert.equal(
        (await api(clinic.patient.token).patch(`/queues/${queue.id}`, { $callNext: true })).status,
        404
      )
      const queueNow = await api(clinic.scheduler.token).get(`/queues/${queue.id}`)
      assert.equal(queueNow.body.lastTicket, 2)
    })

    it('calls two different items for two simultaneous calls (REST and Socket.IO), and records the patient in the audit trail', async () => {
      const queue = await createQueue(server.url, clinic)
      const items: any[] = []
      for (let i = 0; i < 6; i++)
        items.push(await addItem(server.url, clinic, queue.id, clinic.patient.account.id))
      const socket = await connect(server.url, clinic.scheduler.token)
      try {
        const called = await Promise.all([
          api(clinic.scheduler.token)
            .patch(`/queues/${queue.id}`, { $callNext: true })
            .then((res) => res.body),
          api(clinic.owner.token)
            .patch(`/queues/${queue.id}`, { $callNext: true })
            .then((res) => res.body),
          socket.client.service('queues').patch(queue.id, { $callNext: true }),
          socket.client.service('queues').patch(queue.id, { $callNext: true })
        ])
        assert.deepEqual(called.map((item: any) => item.number).sort(), [1, 2, 3, 4])
        assert.equal(new Set(called.map((item: any) => item.id)).size, 4)
        assert.ok(called.every((item: any) => item.status === 'called'))
        const refused = await refusal(
          socket.client.service('queues').patch(queue.id, { $callNext: 1 as any })
        )
        assert.equal(refused.code, 400)
      } finally {
        socket.close()
      }
      const audit = await api(clinic.patient.token).get('/audit-events?service=queues&$limit=100')
      assert.equal(audit.status, 200, JSON.stringify(audit.body))
      const calls = audit.body.data.filter((e: any) => e.action === 'patch' && e.ids.includes(items[0].id))
      assert.equal(calls.length, 1, JSON.stringify(audit.body.data))
      assert.deepEqual([calls[0].patient, calls[0].facility], [clinic.patient.account.id, clinic.id])
    })
  })
})
