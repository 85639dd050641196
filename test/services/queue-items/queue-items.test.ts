// Queue items over HTTP and Socket.IO on a clock the test moves: tickets numbered per local day of the facility
// (twenty at once: 1..20), positions among the waiting, pushed live to each waiting patient and to nobody else,
// the status machine and the patient's own cancel, who reads what, and the items issued when appointments are
// checked in (twenty check-ins at once: 1..20; the recovery pass issues the missing ones).
import assert from 'node:assert/strict'
import {
  recordEvents,
  refusal,
  restClient,
  sleep,
  startServer,
  waitUntil,
  type TestServer
} from '../../helpers/app'
import { fieldsOf } from '../../helpers/billing'
import { createSchedule, setupClinic, type ClinicFixture } from '../../helpers/appointments'
import { LONG_SESSIONS } from '../../helpers/subscriptions'
import { addItem, connect, createQueue, newPatients } from '../../queues/fixtures'
import { depsSlot } from '../../../src/deps'
import { checkInRecoveryPass } from '../../../src/queues/check-in'

const MIN = 60_000
const HOUR = 60 * MIN
// Monday 8 March 2027, 08:00 UTC (the facility's time zone is UTC); the schedule opens at 09:00.
const NOW = Date.UTC(2027, 2, 8, 8, 0)
const MONDAY_9 = Date.UTC(2027, 2, 8, 9, 0)

describe('queue-items', function () {
  this.timeout(90000)
  let server: TestServer
  let clinic: ClinicFixture
  let now = NOW
  const api = (token?: string) => restClient(server.url, token)
  const staff = () => api(clinic.scheduler.token)
  const move = (token: string, id: string, status: string) =>
    api(token).patch(`/queue-items/${id}`, { status })

  before(async () => {
    server = await startServer({ clock: { now: () => now }, sessions: LONG_SESSIONS })
    clinic = await setupClinic(server.url)
  })
  afterEach(() => {
    now = NOW
  })
  after(() => server.close())

  describe('creating', () => {
    it('issues the next ticket of the day, waiting, with its position, stamps and the facility', async () => {
      const queue = await createQueue(server.url, clinic)
      const item = await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
      assert.deepEqual(
        [item.queue, item.facility, item.patient, item.number, item.day, item.status, item.position],
        [queue.id, clinic.id, clinic.patient.account.id, 1, '2027-03-08', 'waiting', 1]
      )
      assert.deepEqual(
        [item.waitingAt, item.waitingBy, item.createdBy],
        [NOW, clinic.scheduler.account.id, clinic.scheduler.account.id]
      )
      assert.deepEqual(item.statusHistory, [{ status: 'waiting', at: NOW, by: clinic.scheduler.account.id }])
      assert.equal(item.appointmentKey, undefined)
      const second = await addItem(server.url, clinic, queue.id, clinic.member.account.id)
      assert.deepEqual([second.number, second.position], [2, 2])
    })

    it('answers 400 naming the field, 409 for an inactive queue, 403 for a plain member, 404 for others', async () => {
      const queue = await createQueue(server.url, clinic)
      const body = { queue: queue.id, patient: clinic.patient.account.id }
      for (const [extra, field] of [
        [{ number: 7 }, 'number'],
        [{ status: 'called' }, 'status'],
        [{ position: 1 }, 'position'],
        [{ facility: clinic.id }, 'facility'],
        [{ day: '2027-03-08' }, 'day'],
        [{ appointmentKey: 'x' }, 'appointmentKey'],
        [{ patient: 'no-such-account' }, 'patient'],
        [{ appointment: 'no-such-appointment' }, 'appointment']
      ] as const) {
        const res = await staff().post('/queue-items', { ...body, ...extra })
        assert.equal(res.status, 400, `${JSON.stringify(extra)}: ${JSON.stringify(res.body)}`)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
      assert.equal((await api(clinic.member.token).post('/queue-items', body)).status, 403)
      assert.equal((await api(clinic.provider.token).post('/queue-items', body)).status, 403)
      for (const who of [clinic.stranger, clinic.patient])
        assert.equal((await api(who.token).post('/queue-items', body)).status, 404)
      assert.equal((await staff().post('/queue-items', { ...body, queue: 'no-such-queue' })).status, 404)
      await staff().patch(`/queues/${queue.id}`, { active: false })
      const retired = await staff().post('/queue-items', body)
      assert.equal(retired.status, 409)
      assert.deepEqual(fieldsOf(retired.body), ['queue'])
      // Nothing half-written: the refused creates took no ticket.
      const after = await staff().get(`/queue-items?queue=${queue.id}`)
      assert.equal(after.body.total, 0)
    })

    it('numbers twenty simultaneous creates (REST and Socket.IO) 1..20, each once, in positions 1..20', async () => {
      const queue = await createQueue(server.url, clinic)
      const patients = await newPatients(server.url, 20)
      const sockets = await Promise.all(
        Array.from({ length: 10 }, () => connect(server.url, clinic.scheduler.token))
      )
      try {
        const created: any[] = await Promise.all(
          patients.map((patient, i) => {
            const body = { queue: queue.id, patient: patient.account.id }
            return i % 2
              ? staff()
                  .post('/queue-items', body)
                  .then((res) => res.body)
              : sockets[i / 2].client.service('queue-items').create(body)
          })
        )
        assert.deepEqual(
          created.map((item) => item.number).sort((a, b) => a - b),
          Array.from({ length: 20 }, (_, i) => i + 1)
        )
      } finally {
        for (const socket of sockets) socket.close()
      }
      const listed = await staff().get(`/queue-items?queue=${queue.id}&$sort[number]=1&$limit=50`)
      assert.deepEqual(
        listed.body.data.map((item: any) => [item.number, item.position]),
        Array.from({ length: 20 }, (_, i) => [i + 1, i + 1])
      )
    })

    it("restarts the numbers each local day; yesterday's waiting items stay ahead", async () => {
      const queue = await createQueue(server.url, clinic)
      now = Date.UTC(2027, 2, 8, 23, 50)
      const late = await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
      const later = await addItem(server.url, clinic, queue.id, clinic.member.account.id)
      now = Date.UTC(2027, 2, 9, 0, 10)
      const first = await addItem(server.url, clinic, queue.id, clinic.provider.account.id)
      assert.deepEqual(
        [late, later, first].map((item) => [item.day, item.number]),
        [
          ['2027-03-08', 1],
          ['2027-03-08', 2],
          ['2027-03-09', 1]
        ]
      )
      assert.equal(first.position, 3)
      await move(clinic.scheduler.token, late.id, 'called')
      assert.equal((await staff().get(`/queue-items/${first.id}`)).body.position, 2)
      assert.equal((await addItem(server.url, clinic, queue.id, clinic.owner.account.id)).number, 2)
    })
  })

  describe("the facility's local day", () => {
    it("numbers by the day in the facility's time zone (Pacific/Auckland: already Tuesday at 12:00 UTC Monday)", async () => {
      const far = await setupClinic(server.url)
      const zone = await api(far.owner.token).patch(`/organizations/${far.id}`, {
        timeZone: 'Pacific/Auckland'
      })
      assert.equal(zone.status, 200, JSON.stringify(zone.body))
      const queue = await createQueue(server.url, far)
      const add = async () => {
        const res = await api(far.scheduler.token).post('/queue-items', {
          queue: queue.id,
          patient: far.patient.account.id
        })
        assert.equal(res.status, 201, JSON.stringify(res.body))
        return res.body
      }
      now = Date.UTC(2027, 2, 8, 10, 50) // 23:50 in Auckland (UTC+13), Monday
      const monday = await add()
      now = Date.UTC(2027, 2, 8, 11, 10) // 00:10 on Tuesday in Auckland, still Monday in UTC
      const tuesday = [await add(), await add()]
      assert.deepEqual(
        [monday, ...tuesday].map((item) => [item.day, item.number]),
        [
          ['2027-03-08', 1],
          ['2027-03-09', 1],
          ['2027-03-09', 2]
        ]
      )
    })
  })

  describe('status', () => {
    it('moves waiting → called → serving → done, stamping each; then nothing (409 naming the allowed)', async () => {
      const queue = await createQueue(server.url, clinic)
      const item = await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
      for (const status of ['called', 'serving', 'done']) {
        now += MIN
        const res = await move(clinic.scheduler.token, item.id, status)
        assert.equal(res.status, 200, JSON.stringify(res.body))
        assert.deepEqual(
          [res.body.status, res.body[`${status}At`], res.body[`${status}By`]],
          [status, now, clinic.scheduler.account.id]
        )
        assert.equal(res.body.position, undefined)
      }
      const done = await staff().get(`/queue-items/${item.id}`)
      assert.deepEqual(
        done.body.statusHistory.map((h: any) => h.status),
        ['waiting', 'called', 'serving', 'done']
      )
      const again = await move(clinic.scheduler.token, item.id, 'waiting')
      assert.equal(again.status, 409)
      assert.deepEqual(again.body.data.allowed, [])
    })

    it('refuses illegal moves with 409 naming the allowed ones; skips and cancels from waiting or called', async () => {
      const queue = await createQueue(server.url, clinic)
      const [a, b, c] = [
        await addItem(server.url, clinic, queue.id, clinic.patient.account.id),
        await addItem(server.url, clinic, queue.id, clinic.patient.account.id),
        await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
      ]
      const serve = await move(clinic.scheduler.token, a.id, 'serving')
      assert.equal(serve.status, 409)
      assert.deepEqual(serve.body.data.allowed, ['called', 'skipped', 'cancelled'])
      assert.match(serve.body.message, /allowed: called, skipped, cancelled/)
      assert.equal((await move(clinic.scheduler.token, a.id, 'skipped')).body.status, 'skipped')
      await move(clinic.scheduler.token, b.id, 'called')
      assert.equal((await move(clinic.scheduler.token, b.id, 'cancelled')).body.status, 'cancelled')
      await move(clinic.scheduler.token, c.id, 'called')
      await move(clinic.scheduler.token, c.id, 'serving')
      const late = await move(clinic.scheduler.token, c.id, 'skipped')
      assert.equal(late.status, 409)
      assert.deepEqual(late.body.data.allowed, ['done'])
      for (const [body, field] of [
        [{ status: 'gone' }, 'status'],
        [{}, 'status'],
        [{ status: 'done', number: 3 }, 'number'],
        [{ status: 'done', position: 1 }, 'position']
      ] as const) {
        const res = await api(clinic.scheduler.token).patch(`/queue-items/${c.id}`, body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(fieldsOf(res.body), [field])
      }
      assert.equal((await api(clinic.scheduler.token).delete(`/queue-items/${c.id}`)).status, 405)
    })

    it('lets a patient cancel their own waiting item, and nothing else', async () => {
      const queue = await createQueue(server.url, clinic)
      const mine = await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
      const called = await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
      const theirs = await addItem(server.url, clinic, queue.id, clinic.member.account.id)
      assert.equal((await move(clinic.patient.token, mine.id, 'called')).status, 403)
      assert.equal((await move(clinic.patient.token, theirs.id, 'cancelled')).status, 404)
      const socket = await connect(server.url, clinic.patient.token)
      try {
        const cancelled: any = await socket.client
          .service('queue-items')
          .patch(mine.id, { status: 'cancelled' })
        assert.deepEqual([cancelled.status, cancelled.cancelledBy], ['cancelled', clinic.patient.account.id])
        await move(clinic.scheduler.token, called.id, 'called')
        const refused = await refusal(
          socket.client.service('queue-items').patch(called.id, { status: 'cancelled' })
        )
        assert.equal(refused.code, 409)
        assert.deepEqual(refused.data.allowed, [])
      } finally {
        socket.close()
      }
      assert.equal((await move(clinic.stranger.token, theirs.id, 'cancelled')).status, 404)
    })
  })

  describe('reading', () => {
    it('a patient sees only their own items with their position; staff see the queue; others nothing', async () => {
      const queue = await createQueue(server.url, clinic)
      const [other] = await newPatients(server.url, 1)
      await addItem(server.url, clinic, queue.id, other.account.id)
      const mine = await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
      await addItem(server.url, clinic, queue.id, other.account.id)
      const own = await api(clinic.patient.token).get(`/queue-items?queue=${queue.id}`)
      assert.deepEqual(
        own.body.data.map((item: any) => [item.id, item.position]),
        [[mine.id, 2]]
      )
      assert.equal((await api(clinic.patient.token).get(`/queue-items/${mine.id}`)).body.position, 2)
      const all = await staff().get(`/queue-items?queue=${queue.id}&$sort[number]=1`)
      assert.deepEqual(
        all.body.data.map((item: any) => [item.number, item.position]),
        [
          [1, 1],
          [2, 2],
          [3, 3]
        ]
      )
      assert.equal((await api(clinic.owner.token).get(`/queue-items?queue=${queue.id}`)).body.total, 3)
      for (const who of [clinic.stranger, clinic.member, other]) {
        const found = await api(who.token).get(`/queue-items?queue=${queue.id}`)
        assert.equal(found.status, 200)
        assert.equal(
          found.body.data.filter((item: any) => item.patient !== who.account.id).length,
          0,
          JSON.stringify(found.body)
        )
        if (who !== other) assert.equal((await api(who.token).get(`/queue-items/${mine.id}`)).status, 404)
      }
      assert.equal((await api().get(`/queue-items/${mine.id}`)).status, 401)
    })

    it('records each call in the audit trail with the patient and the facility', async () => {
      const queue = await createQueue(server.url, clinic)
      const item = await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
      await api(clinic.owner.token).get(`/queue-items/${item.id}`)
      const res = await api(clinic.patient.token).get('/audit-events?service=queue-items&$limit=100')
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const events = res.body.data.filter((e: any) => e.ids.includes(item.id))
      assert.deepEqual(events.map((e: any) => [e.action, e.actor, e.patient, e.facility]).sort(), [
        ['create', clinic.scheduler.account.id, clinic.patient.account.id, clinic.id],
        ['read', clinic.owner.account.id, clinic.patient.account.id, clinic.id]
      ])
    })
  })

  describe('live positions', () => {
    it("pushes each waiting patient their own item's changes and new position, the staff all, a stranger nothing", async () => {
      const queue = await createQueue(server.url, clinic)
      const patients = await newPatients(server.url, 3)
      const connections = await Promise.all(
        [...patients, clinic.scheduler, clinic.stranger].map((who) => connect(server.url, who.token))
      )
      try {
        const seen = connections.map((c) => recordEvents(c.client, 'queue-items'))
        const items = []
        for (const patient of patients)
          items.push(await addItem(server.url, clinic, queue.id, patient.account.id))
        for (let i = 0; i < 3; i++) await waitUntil(() => seen[i].length === 1, 5000, `patient ${i} created`)
        await waitUntil(() => seen[3].length === 3, 5000, 'staff created')
        for (let i = 0; i < 3; i++)
          assert.deepEqual(
            seen[i].map((e) => [e.event, e.data.id, e.data.position]),
            [['created', items[i].id, i + 1]]
          )
        // The first is called: the two behind move up, each told on their own connection.
        const called = await staff().patch(`/queues/${queue.id}`, { $callNext: true })
        assert.equal(called.body.id, items[0].id)
        for (let i = 0; i < 3; i++) await waitUntil(() => seen[i].length === 2, 5000, `patient ${i} patched`)
        assert.deepEqual(
          seen
            .slice(0, 3)
            .map(
              (events) =>
                events[1].event === 'patched' && [
                  events[1].data.id,
                  events[1].data.status,
                  events[1].data.position ?? null
                ]
            ),
          [
            [items[0].id, 'called', null],
            [items[1].id, 'waiting', 1],
            [items[2].id, 'waiting', 2]
          ]
        )
        // The second cancels herself: only the third moves up.
        await api(patients[1].token).patch(`/queue-items/${items[1].id}`, { status: 'cancelled' })
        await waitUntil(() => seen[1].length === 3 && seen[2].length === 3, 5000, 'cancel and move up')
        assert.deepEqual([seen[1][2].data.status, seen[2][2].data.position], ['cancelled', 1])
        // Staff: three created, the call, two moves up, the cancel, one move up.
        await waitUntil(() => seen[3].length === 8, 5000, 'staff saw every change')
        await sleep(100)
        assert.equal(seen[0].length, 2)
        assert.equal(seen[4].length, 0)
        for (let i = 0; i < 3; i++) assert.ok(seen[i].every((e) => e.data.patient === patients[i].account.id))
      } finally {
        for (const connection of connections) connection.close()
      }
    })
  })

  describe('check-in', () => {
    let calendar: ClinicFixture
    let slot = 0
    // Monday 09:00–11:45 and 13:00–16:45 in 15-minute slots.
    const nextSlot = () => {
      const index = slot++
      return index < 12 ? MONDAY_9 + index * 15 * MIN : MONDAY_9 + 4 * HOUR + (index - 12) * 15 * MIN
    }
    const book = async (patient: string) => {
      const res = await api(calendar.scheduler.token).post('/appointments', {
        facility: calendar.id,
        provider: calendar.provider.account.id,
        patient,
        start: nextSlot()
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      return res.body
    }
    const checkIn = (id: string) =>
      api(calendar.scheduler.token).patch(`/appointments/${id}`, { status: 'checked-in' })
    const itemsOf = async (query: string) =>
      (await api(calendar.scheduler.token).get(`/queue-items?${query}&$limit=100&$sort[number]=1`)).body.data

    before(async () => {
      calendar = await setupClinic(server.url)
      await createSchedule(server.url, calendar)
    })

    it("without an active default queue issues nothing; the recovery pass issues the day's missing items later", async () => {
      const appointment = await book(calendar.patient.account.id)
      assert.equal((await checkIn(appointment.id)).status, 200)
      assert.equal((await itemsOf(`appointment=${appointment.id}`)).length, 0)
      const queue = await createQueue(server.url, calendar, { default: true, name: 'Waiting room' })
      assert.equal(await checkInRecoveryPass(depsSlot.require(server.app)), 1)
      const [item] = await itemsOf(`appointment=${appointment.id}`)
      assert.deepEqual(
        [item.queue, item.patient, item.number, item.position, item.createdBy],
        [queue.id, calendar.patient.account.id, 1, 1, 'system']
      )
      assert.equal(await checkInRecoveryPass(depsSlot.require(server.app)), 0)
    })

    it('issues the item at check-in, once, with its number and position, visible to the patient live', async () => {
      const socket = await connect(server.url, calendar.patient.token)
      try {
        const seen = recordEvents(socket.client, 'queue-items')
        const appointment = await book(calendar.patient.account.id)
        assert.equal((await checkIn(appointment.id)).status, 200)
        const items = await itemsOf(`appointment=${appointment.id}`)
        assert.equal(items.length, 1)
        assert.deepEqual(
          [items[0].number, items[0].position, items[0].createdBy],
          [2, 2, calendar.scheduler.account.id]
        )
        await waitUntil(() => seen.length === 1, 5000, 'created')
        assert.deepEqual(
          [seen[0].event, seen[0].data.appointment, seen[0].data.position],
          ['created', appointment.id, 2]
        )
        const own = await api(calendar.patient.token).get(`/queue-items?appointment=${appointment.id}`)
        assert.equal(own.body.data[0].position, 2)
        // Once: later moves of the appointment and another recovery pass issue nothing more.
        await api(calendar.scheduler.token).patch(`/appointments/${appointment.id}`, {
          status: 'in-progress'
        })
        assert.equal(await checkInRecoveryPass(depsSlot.require(server.app)), 0)
        assert.equal((await itemsOf(`appointment=${appointment.id}`)).length, 1)
        const twice = await api(calendar.scheduler.token).post('/queue-items', {
          queue: items[0].queue,
          patient: calendar.patient.account.id,
          appointment: appointment.id
        })
        assert.equal(twice.status, 409)
        assert.deepEqual(fieldsOf(twice.body), ['appointment'])
      } finally {
        socket.close()
      }
    })

    it('numbers twenty simultaneous check-ins (REST and Socket.IO) with twenty consecutive tickets', async () => {
      const patients = await newPatients(server.url, 20)
      const appointments: any[] = []
      for (const patient of patients) appointments.push(await book(patient.account.id))
      const [queue] = (
        await api(calendar.scheduler.token).get(`/queues?facility=${calendar.id}&default=true`)
      ).body.data
      const before = (await itemsOf(`queue=${queue.id}`)).length
      const sockets = await Promise.all(
        Array.from({ length: 10 }, () => connect(server.url, calendar.scheduler.token))
      )
      try {
        await Promise.all(
          appointments.map((appointment, i) =>
            i % 2
              ? checkIn(appointment.id).then((res) => assert.equal(res.status, 200, JSON.stringify(res.body)))
              : sockets[i / 2].client.service('appointments').patch(appointment.id, { status: 'checked-in' })
          )
        )
      } finally {
        for (const socket of sockets) socket.close()
      }
      const issued = (await itemsOf(`queue=${queue.id}`)).filter((item: any) =>
        appointments.some((a) => a.id === item.appointment)
      )
      assert.equal(new Set(issued.map((item: any) => item.appointment)).size, 20)
      assert.deepEqual(
        issued.map((item: any) => item.number),
        Array.from({ length: 20 }, (_, i) => before + i + 1)
      )
    })
  })
})
