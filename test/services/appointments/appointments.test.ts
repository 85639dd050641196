// Appointments over HTTP and Socket.IO on a clock the test moves: booking into free slots (400 off the grid, 409
// taken), the booking race (twenty at once: one 201), who books and who reads, every status move and the illegal
// ones, cancelling frees the slot, no-shows only after start, and rescheduling.
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
import { fieldsOf } from '../../helpers/billing'
import { createSchedule, setupClinic, type ClinicFixture } from '../../helpers/appointments'
import { LONG_SESSIONS } from '../../helpers/subscriptions'
import { depsSlot } from '../../../src/deps'
import { providerLock } from '../../../src/appointments/book'

const MIN = 60_000
const DAY = 86_400_000
// Friday 5 March 2027, 12:00 UTC; the clinic's schedule is UTC, Monday to Friday 09:00–12:00 and 13:00–17:00.
const NOW = Date.UTC(2027, 2, 5, 12, 0)
const MONDAY_9 = Date.UTC(2027, 2, 8, 9, 0)

describe('appointments', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  let schedule: any
  let now = NOW
  let slotIndex = 0
  const api = (token?: string) => restClient(server.url, token)
  /** A slot nobody else in this file books: Monday to Friday, each test its own. */
  const nextSlot = () => MONDAY_9 + Math.floor(slotIndex / 12) * DAY + (slotIndex++ % 12) * 15 * MIN
  const booking = (start: number, extra: Record<string, unknown> = {}) => ({
    facility: clinic.id,
    provider: clinic.provider.account.id,
    patient: clinic.patient.account.id,
    start,
    ...extra
  })
  const book = async (start = nextSlot(), token = clinic.scheduler.token, extra = {}) => {
    const res = await api(token).post('/appointments', booking(start, extra))
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body
  }
  const move = (token: string, id: string, body: Record<string, unknown>) =>
    api(token).patch(`/appointments/${id}`, body)
  const freeStarts = async (from: number, to: number) =>
    (
      await api(clinic.scheduler.token).get(
        `/appointment-slots?facility=${clinic.id}&from=${from}&to=${to}&$limit=500`
      )
    ).body.data.map((s: any) => s.start)

  before(async () => {
    server = await startServer({ clock: { now: () => now }, sessions: LONG_SESSIONS })
    clinic = await setupClinic(server.url)
    schedule = await createSchedule(server.url, clinic)
  })
  afterEach(() => {
    now = NOW
  })
  after(() => server.close())

  describe('booking', () => {
    it('books a free slot: end = start + slotMinutes, scheduled, stamped; the slot is no longer free', async () => {
      const start = nextSlot()
      assert.ok((await freeStarts(start, start + MIN)).includes(start))
      const appointment = await book(start, clinic.scheduler.token, { reason: 'Check-up', type: 'consult' })
      assert.equal(appointment.end, start + 15 * MIN)
      assert.equal(appointment.status, 'scheduled')
      assert.equal(appointment.schedule, schedule.id)
      assert.equal(appointment.createdBy, clinic.scheduler.account.id)
      assert.equal(appointment.scheduledBy, clinic.scheduler.account.id)
      assert.equal(appointment.scheduledAt, NOW)
      assert.deepEqual(appointment.statusHistory, [
        { status: 'scheduled', at: NOW, by: clinic.scheduler.account.id }
      ])
      assert.equal(appointment.slotKey, undefined)
      assert.deepEqual([appointment.reason, appointment.type], ['Check-up', 'consult'])
      assert.equal((await freeStarts(start, start + MIN)).length, 0)
    })

    it('answers 400 naming start off the grid, outside the windows and in the past, patient for no account; 409 taken', async () => {
      const start = nextSlot()
      for (const bad of [
        start + 5 * MIN,
        Date.UTC(2027, 2, 8, 12, 0),
        Date.UTC(2027, 2, 6, 9, 0),
        Date.UTC(2027, 2, 5, 9, 0)
      ]) {
        const res = await api(clinic.scheduler.token).post('/appointments', booking(bad))
        assert.equal(res.status, 400, `${new Date(bad).toISOString()}: ${JSON.stringify(res.body)}`)
        assert.deepEqual(fieldsOf(res.body), ['start'])
      }
      const unknownPatient = await api(clinic.scheduler.token).post(
        '/appointments',
        booking(start, { patient: 'no-such-account' })
      )
      assert.equal(unknownPatient.status, 400)
      assert.deepEqual(fieldsOf(unknownPatient.body), ['patient'])
      await book(start)
      const again = await api(clinic.scheduler.token).post(
        '/appointments',
        booking(start, { patient: clinic.member.account.id })
      )
      assert.equal(again.status, 409, JSON.stringify(again.body))
      for (const field of ['end', 'status', 'createdBy', 'slotKey', 'schedule']) {
        const res = await api(clinic.scheduler.token).post(
          '/appointments',
          booking(nextSlot(), { [field]: 'x' })
        )
        assert.equal(res.status, 400, field)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
    })

    it('of twenty simultaneous bookings of one slot (REST and Socket.IO), exactly one is a 201, the others 409', async () => {
      const start = nextSlot()
      const sockets = await Promise.all(
        Array.from({ length: 10 }, async () => {
          const socket = socketClient(server.url)
          await socket.client.authenticate({ strategy: 'jwt', accessToken: clinic.scheduler.token })
          return socket
        })
      )
      try {
        const outcomes = await Promise.all([
          ...Array.from({ length: 10 }, () =>
            api(clinic.scheduler.token)
              .post('/appointments', booking(start))
              .then((res) => res.status)
          ),
          ...sockets.map((socket) =>
            socket.client
              .service('appointments')
              .create(booking(start))
              .then(
                () => 201,
                (error: any) => error.code
              )
          )
        ])
        assert.deepEqual(outcomes.filter((code) => code === 201).length, 1, `outcomes: ${outcomes.join(',')}`)
        assert.deepEqual(
          outcomes.filter((code) => code !== 201),
          Array(19).fill(409)
        )
        const stored = await api(clinic.scheduler.token).get(`/appointments?start=${start}`)
        assert.equal(stored.body.total, 1)
      } finally {
        for (const socket of sockets) socket.close()
      }
    })

    it('keeps the buffer after a booking free of other bookings', async () => {
      await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, { bufferMinutes: 10 })
      try {
        const start = Date.UTC(2027, 2, 10, 13, 0)
        await book(start)
        const next = await api(clinic.scheduler.token).post('/appointments', booking(start + 15 * MIN))
        assert.equal(next.status, 409, JSON.stringify(next.body))
        assert.deepEqual(await freeStarts(start, start + 45 * MIN), [start + 30 * MIN])
      } finally {
        await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, { bufferMinutes: 0 })
      }
    })
  })

  describe('overlapping bookings (the provider lock)', () => {
    // Saturday 13 and Sunday 14 March 2027, which the weekday schedule leaves free: two more schedules of the
    // provider on Saturday morning with different grids; on Sunday morning one with a 10-minute buffer, on Sunday
    // afternoon one of 5-minute slots each keeping 2 hours after it free (any two of its bookings overlap).
    const SAT_9 = Date.UTC(2027, 2, 13, 9, 0)
    const SUN_9 = Date.UTC(2027, 2, 14, 9, 0)
    const SUN_14 = Date.UTC(2027, 2, 14, 14, 0)
    let quarter: any
    let third: any
    before(async () => {
      quarter = await createSchedule(server.url, clinic, {
        weekly: [{ day: 6, start: '09:00', end: '12:00' }]
      })
      third = await createSchedule(server.url, clinic, {
        weekly: [{ day: 6, start: '09:00', end: '12:00' }],
        slotMinutes: 20
      })
      await createSchedule(server.url, clinic, {
        weekly: [{ day: 0, start: '09:00', end: '12:00' }],
        bufferMinutes: 10
      })
      await createSchedule(server.url, clinic, {
        weekly: [{ day: 0, start: '14:00', end: '16:00' }],
        slotMinutes: 5,
        bufferMinutes: 120
      })
    })
    const attempt = (start: number) => api(clinic.scheduler.token).post('/appointments', booking(start))
    const listed = async (from: number, to: number) =>
      (
        await api(clinic.scheduler.token).get(
          `/appointment-slots?facility=${clinic.id}&from=${from}&to=${to}&$limit=500`
        )
      ).body.data.map((s: any) => [s.schedule, (s.start - from) / MIN])

    it('refuses a booking on another grid of the provider that overlaps a booked one (409), over REST and Socket.IO', async () => {
      const booked = await book(SAT_9 + 15 * MIN)
      assert.equal(booked.schedule, quarter.id)
      // 09:20–09:40 and 09:00–09:20 on the 20-minute grid overlap 09:15–09:30.
      assert.equal((await attempt(SAT_9 + 20 * MIN)).status, 409)
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: clinic.scheduler.token })
        const refused = await refusal(socket.client.service('appointments').create(booking(SAT_9 + 20 * MIN)))
        assert.equal(refused.code, 409)
      } finally {
        socket.close()
      }
      assert.deepEqual(await listed(SAT_9, SAT_9 + 45 * MIN), [
        [quarter.id, 0],
        [quarter.id, 30],
        [third.id, 40]
      ])
      // 09:00 is still free on the 15-minute grid (09:00–09:15), and 09:40 on the 20-minute one.
      const early = await book(SAT_9)
      assert.deepEqual([early.schedule, early.end], [quarter.id, SAT_9 + 15 * MIN])
      const later = await book(SAT_9 + 40 * MIN)
      assert.deepEqual([later.schedule, later.end], [third.id, SAT_9 + 60 * MIN])
      assert.equal((await attempt(SAT_9 + 45 * MIN)).status, 409)
    })

    it("refuses a booking inside another's buffer, after it and before it (409)", async () => {
      await book(SUN_9 + 60 * MIN)
      // 10:15 starts inside the 10 minutes after 10:00–10:15; 09:45–10:00 would leave no 10 minutes before 10:00.
      for (const start of [SUN_9 + 75 * MIN, SUN_9 + 45 * MIN]) {
        const res = await attempt(start)
        assert.equal(res.status, 409, `${new Date(start).toISOString()}: ${JSON.stringify(res.body)}`)
        assert.deepEqual(fieldsOf(res.body), ['start'])
      }
      assert.deepEqual(
        (await listed(SUN_9 + 30 * MIN, SUN_9 + 91 * MIN)).map(([, minute]: [string, number]) => minute),
        [0, 60]
      )
      await book(SUN_9 + 30 * MIN)
      await book(SUN_9 + 90 * MIN)
    })

    it('of twenty simultaneous bookings of different but overlapping starts (REST and Socket.IO), exactly one is a 201', async () => {
      const starts = Array.from({ length: 20 }, (_, i) => SUN_14 + i * 5 * MIN)
      const sockets = await Promise.all(
        Array.from({ length: 10 }, async () => {
          const socket = socketClient(server.url)
          await socket.client.authenticate({ strategy: 'jwt', accessToken: clinic.scheduler.token })
          return socket
        })
      )
      try {
        const outcomes = await Promise.all(
          starts.map((start, i) =>
            i % 2
              ? attempt(start).then((res) => res.status)
              : sockets[i / 2].client
                  .service('appointments')
                  .create(booking(start))
                  .then(
                    () => 201,
                    (error: any) => error.code
                  )
          )
        )
        assert.equal(outcomes.filter((code) => code === 201).length, 1, `outcomes: ${outcomes.join(',')}`)
        assert.deepEqual(
          outcomes.filter((code) => code !== 201),
          Array(19).fill(409)
        )
        const stored = await api(clinic.scheduler.token).get(
          `/appointments?start[$gte]=${SUN_14}&start[$lt]=${SUN_14 + 2 * 60 * MIN}`
        )
        assert.equal(stored.body.total, 1)
      } finally {
        for (const socket of sockets) socket.close()
      }
    })

    it('answers 503 asking to try again when the provider stays locked for seconds, and books once it is free', async () => {
      const start = nextSlot()
      let release = () => {}
      const held = new Promise<void>((resolve) => (release = resolve))
      const holding = depsSlot
        .get(server.app)!
        .locks.exclusive(providerLock(clinic.provider.account.id), () => held)
      try {
        const res = await attempt(start)
        assert.equal(res.status, 503, JSON.stringify(res.body))
        assert.match(res.body.message, /try again/)
      } finally {
        release()
        await holding
      }
      await book(start)
    })
  })

  describe('who books and who reads', () => {
    it('staff book for any patient; a patient books for themself only when the schedule is open to patients', async () => {
      await book(nextSlot(), clinic.owner.token)
      await book(nextSlot(), clinic.provider.token)
      assert.equal((await api(clinic.patient.token).post('/appointments', booking(nextSlot()))).status, 403)
      await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, { booking: 'patients' })
      try {
        const own = await book(nextSlot(), clinic.patient.token)
        assert.equal(own.createdBy, clinic.patient.account.id)
        const forOther = await api(clinic.patient.token).post(
          '/appointments',
          booking(nextSlot(), { patient: clinic.member.account.id })
        )
        assert.equal(forOther.status, 404)
      } finally {
        await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, { booking: 'staff' })
      }
      const member = await api(clinic.member.token).post(
        '/appointments',
        booking(nextSlot(), { patient: clinic.stranger.account.id })
      )
      assert.equal(member.status, 403)
      const stranger = await api(clinic.stranger.token).post(
        '/appointments',
        booking(nextSlot(), { patient: clinic.member.account.id })
      )
      assert.equal(stranger.status, 404)
      assert.equal((await api().post('/appointments', booking(nextSlot()))).status, 401)
    })

    it('the facility staff, the provider and the patient read it; a plain member and a stranger get 404', async () => {
      const appointment = await book()
      for (const who of [clinic.owner, clinic.scheduler, clinic.provider, clinic.patient]) {
        assert.equal((await api(who.token).get(`/appointments/${appointment.id}`)).status, 200)
      }
      for (const who of [clinic.member, clinic.stranger]) {
        assert.equal((await api(who.token).get(`/appointments/${appointment.id}`)).status, 404)
        assert.equal((await move(who.token, appointment.id, { status: 'checked-in' })).status, 404)
      }
      const mine = await api(clinic.patient.token).get('/appointments')
      assert.ok(mine.body.data.every((a: any) => a.patient === clinic.patient.account.id))
      assert.equal((await api(clinic.scheduler.token).delete(`/appointments/${appointment.id}`)).status, 405)
    })

    it('records each call in the audit trail with the patient and the facility (the patient reads it)', async () => {
      const appointment = await book()
      await api(clinic.provider.token).get(`/appointments/${appointment.id}`)
      const res = await api(clinic.patient.token).get('/audit-events?service=appointments&$limit=100')
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const events = res.body.data.filter((e: any) => e.ids.includes(appointment.id))
      assert.deepEqual(events.map((e: any) => [e.action, e.actor, e.patient, e.facility]).sort(), [
        ['create', clinic.scheduler.account.id, clinic.patient.account.id, clinic.id],
        ['read', clinic.provider.account.id, clinic.patient.account.id, clinic.id]
      ])
    })

    it('announces created and patched over Socket.IO to the staff and the patient, and nothing to a stranger', async () => {
      const connect = async (token: string) => {
        const socket = socketClient(server.url)
        await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
        return socket
      }
      const [staff, patient, stranger] = await Promise.all(
        [clinic.scheduler, clinic.patient, clinic.stranger].map((who) => connect(who.token))
      )
      try {
        const seen = [staff, patient, stranger].map((s) => recordEvents(s.client, 'appointments'))
        const appointment = await book()
        await move(clinic.scheduler.token, appointment.id, { status: 'checked-in' })
        for (const events of seen.slice(0, 2))
          await waitUntil(() => events.length === 2, 5000, 'created and patched')
        assert.deepEqual(
          seen[1].map((e) => [e.event, e.data.id, e.data.slotKey]),
          [
            ['created', appointment.id, undefined],
            ['patched', appointment.id, undefined]
          ]
        )
        await new Promise((resolve) => setTimeout(resolve, 100))
        assert.equal(seen[2].length, 0)
      } finally {
        for (const socket of [staff, patient, stranger]) socket.close()
      }
    })
  })

  describe('status', () => {
    it('moves scheduled → checked-in → in-progress → completed, stamping each; then nothing (409 naming the allowed)', async () => {
      const appointment = await book()
      for (const status of ['checked-in', 'in-progress', 'completed']) {
        const res = await move(clinic.provider.token, appointment.id, { status })
        assert.equal(res.status, 200, JSON.stringify(res.body))
        assert.equal(res.body.status, status)
        assert.equal(res.body[`${status}By`], clinic.provider.account.id)
        assert.equal(res.body[`${status}At`], NOW)
      }
      const done = await api(clinic.provider.token).get(`/appointments/${appointment.id}`)
      assert.deepEqual(
        done.body.statusHistory.map((h: any) => h.status),
        ['scheduled', 'checked-in', 'in-progress', 'completed']
      )
      const late = await move(clinic.provider.token, appointment.id, {
        status: 'cancelled',
        cancelReason: 'x'
      })
      assert.equal(late.status, 409)
      assert.deepEqual(late.body.data.allowed, [])
    })

    it('refuses illegal moves with 409 naming the allowed ones, and bodies that are not one operation with 400', async () => {
      const appointment = await book()
      const skip = await move(clinic.scheduler.token, appointment.id, { status: 'completed' })
      assert.equal(skip.status, 409)
      assert.deepEqual(skip.body.data.allowed, ['checked-in', 'cancelled', 'no-show'])
      assert.match(skip.body.message, /allowed: checked-in, cancelled, no-show/)
      await move(clinic.scheduler.token, appointment.id, { status: 'checked-in' })
      const back = await move(clinic.scheduler.token, appointment.id, { status: 'scheduled' })
      assert.equal(back.status, 409)
      assert.deepEqual(back.body.data.allowed, ['in-progress', 'cancelled'])
      for (const [body, field] of [
        [{ status: 'cancelled' }, 'cancelReason'],
        [{ status: 'in-progress', cancelReason: 'x' }, 'cancelReason'],
        [{}, 'status'],
        [{ status: 'nowhere' }, 'status'],
        [{ end: 1 }, 'end'],
        [{ patient: 'x' }, 'patient']
      ] as const) {
        const res = await move(clinic.scheduler.token, appointment.id, body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(fieldsOf(res.body), [field])
      }
    })

    it('cancelling (with a reason) frees the slot for a new booking', async () => {
      const appointment = await book()
      const cancelled = await move(clinic.scheduler.token, appointment.id, {
        status: 'cancelled',
        cancelReason: 'Patient asked'
      })
      assert.equal(cancelled.status, 200)
      assert.equal(cancelled.body.cancelReason, 'Patient asked')
      assert.equal(cancelled.body.cancelledBy, clinic.scheduler.account.id)
      assert.ok((await freeStarts(appointment.start, appointment.start + MIN)).includes(appointment.start))
      await book(appointment.start)
    })

    it('lets the patient cancel their own until the minimum notice, and nothing else', async () => {
      const appointment = await book()
      assert.equal((await move(clinic.patient.token, appointment.id, { status: 'checked-in' })).status, 403)
      await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, { minNoticeMinutes: 60 })
      try {
        now = appointment.start - 30 * MIN
        const late = await move(clinic.patient.token, appointment.id, {
          status: 'cancelled',
          cancelReason: 'x'
        })
        assert.equal(late.status, 403)
        now = NOW
        const ok = await move(clinic.patient.token, appointment.id, {
          status: 'cancelled',
          cancelReason: 'Ill'
        })
        assert.equal(ok.status, 200, JSON.stringify(ok.body))
        assert.equal(ok.body.cancelledBy, clinic.patient.account.id)
      } finally {
        await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, { minNoticeMinutes: 0 })
      }
    })

    it('marks a no-show only after start', async () => {
      const appointment = await book()
      const early = await move(clinic.scheduler.token, appointment.id, { status: 'no-show' })
      assert.equal(early.status, 409)
      now = appointment.start + MIN
      const res = await move(clinic.scheduler.token, appointment.id, { status: 'no-show' })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body['no-showBy'], clinic.scheduler.account.id)
    })
  })

  describe('rescheduling', () => {
    it('moves a scheduled appointment to a free slot (the old one becomes free); taken 409, off the grid 400', async () => {
      const appointment = await book()
      const target = nextSlot()
      const taken = await book(nextSlot())
      const res = await move(clinic.scheduler.token, appointment.id, { start: target })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.deepEqual([res.body.start, res.body.end], [target, target + 15 * MIN])
      assert.ok((await freeStarts(appointment.start, appointment.start + MIN)).includes(appointment.start))
      assert.equal((await move(clinic.scheduler.token, appointment.id, { start: taken.start })).status, 409)
      const off = await move(clinic.scheduler.token, appointment.id, { start: target + MIN })
      assert.equal(off.status, 400)
      assert.deepEqual(fieldsOf(off.body), ['start'])
      await move(clinic.scheduler.token, appointment.id, { status: 'checked-in' })
      assert.equal((await move(clinic.scheduler.token, appointment.id, { start: nextSlot() })).status, 409)
    })

    it('answers the same over Socket.IO', async () => {
      const appointment = await book()
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: clinic.scheduler.token })
        const target = nextSlot()
        const moved: any = await socket.client
          .service('appointments')
          .patch(appointment.id, { start: target })
        assert.equal(moved.start, target)
        const illegal = await refusal(
          socket.client.service('appointments').patch(appointment.id, { status: 'completed' })
        )
        assert.equal(illegal.code, 409)
      } finally {
        socket.close()
      }
    })
  })
})
