// Appointment reminders through the sandbox clock (SANDBOX_CLOCK=true; the real clock stands still): each move of
// the clock runs the reminder pass before it answers. The default offsets are 24 h and 2 h before start: advance
// to 24 h before → one reminder; to 2 h before → the second; past the appointment → no late one. A jump over both
// offsets sends only the latest due one; an offset already past at booking is skipped; a cancelled appointment
// gets none, and its reminder queued but not sent is skipped (`no-longer-due`); a reschedule gets new reminders.
import assert from 'node:assert/strict'
import { http, restClient, signUp, type SignedUp, startServer, type TestServer } from '../helpers/app'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { ADMIN, LONG_SESSIONS } from '../helpers/subscriptions'
import { depsSlot } from '../../src/deps'
import { notificationWorkerOf } from '../../src/ops/jobs'
import { formatLocal } from '../../src/appointments/zone'
import { notificationTriggers } from '../../src/notifications/triggers'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
// A Friday noon (UTC); the clinic's schedule is open on weekdays 09:00–12:00 and 13:00–17:00.
const NOW = Date.UTC(2027, 2, 5, 12, 0)
const MONDAY_9 = Date.UTC(2027, 2, 8, 9, 0)
const TUESDAY_13 = MONDAY_9 + DAY + 4 * HOUR
const WEDNESDAY_9 = MONDAY_9 + 2 * DAY
const THURSDAY_9 = MONDAY_9 + 3 * DAY

interface Seen {
  id: string
  event: string
  channel: string
  status: string
  reason?: string
  ref: { id: string }
}

describe('appointment reminders', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  let admin: string
  let patient: SignedUp
  const api = (token?: string) => restClient(server.url, token)

  /** Moves the sandbox clock to `now`; answers how many appointments the reminder pass reminded. */
  const moveTo = async (now: number) => {
    const res = await api(admin).patch('/sandbox/clock', { now })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const pass = res.body.ran.find((r: { job: string }) => r.job === 'reminders')
    assert.ok(pass && !pass.error, JSON.stringify(res.body.ran))
    return pass.changed as number
  }

  const remindersOf = async (appointment: string, channel = 'email'): Promise<Seen[]> => {
    const res = await api(patient.token).get(
      `/notifications?ref.id=${appointment}&event=appointment.reminder&channel=${channel}&$sort[createdAt]=1&$sort[channel]=1`
    )
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.data
  }

  /** The offsets (minutes) of the reminders queued for `appointment`, from the store's subject keys. */
  const offsetsOf = async (appointment: string) =>
    (
      await depsSlot.require(server.app).stores.notifications._find({
        query: {
          'ref.id': appointment,
          event: 'appointment.reminder',
          channel: 'email',
          $sort: { createdAt: 1 }
        },
        paginate: false
      })
    ).map((n) => Number(n.dedupeKey.split(':').pop()))

  const book = async (start: number) => {
    const res = await api(clinic.scheduler.token).post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: patient.account.id,
      start
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body
  }

  before(async () => {
    server = await startServer({
      admin: ADMIN,
      sandboxClock: true,
      clock: { now: () => NOW },
      sessions: LONG_SESSIONS,
      appointments: { jobIntervalMs: 0, noShowAfterMs: 7 * DAY },
      // Only the sandbox clock's moves run the pass here; a delivery worker, if any, looks rarely.
      notifications: { reminderIntervalMs: 0, pollIntervalMs: 3_600_000 }
    })
    // These tests read what is queued: the delivery worker (tested on its own) is stopped, so nothing moves on.
    await notificationWorkerOf(server.app)?.stop()
    clinic = await setupClinic(server.url)
    await createSchedule(server.url, clinic)
    patient = await signUp(server.url, { firstName: 'Ada' })
    const login = await http(server.url, 'POST', '/authentication', { body: { strategy: 'local', ...ADMIN } })
    assert.equal(login.status, 201, JSON.stringify(login.body))
    admin = login.body.accessToken
  })
  after(() => server.close())

  it('reminds 24 h and 2 h before, once each, never late; a jump sends only the latest due; past offsets are skipped; a cancelled appointment gets none', async () => {
    const monday = await book(MONDAY_9)
    const tuesday = await book(TUESDAY_13)
    const cancelled = await book(WEDNESDAY_9)

    // Sunday 08:59: nothing due yet.
    assert.equal(await moveTo(MONDAY_9 - DAY - MIN), 0)
    assert.deepEqual(await remindersOf(monday.id), [])

    // Sunday 09:00, 24 h before Monday's: one reminder, by email (SMS is off by default).
    assert.equal(await moveTo(MONDAY_9 - DAY), 1)
    const first = await remindersOf(monday.id)
    assert.deepEqual(
      first.map((n) => [n.event, n.status]),
      [['appointment.reminder', 'queued']]
    )
    assert.deepEqual(
      (await remindersOf(monday.id, 'sms')).map((n) => [n.status, n.reason]),
      [['skipped', 'channel-off']]
    )
    const [doc] = await depsSlot.require(server.app).stores.notifications._find({
      query: { id: first[0].id },
      paginate: false
    })
    assert.ok(doc.body.includes('Hello Ada'), doc.body)
    assert.ok(doc.body.includes(formatLocal(MONDAY_9, 'UTC', 'en')), doc.body)

    // Later the same day: nothing new.
    assert.equal(await moveTo(MONDAY_9 - DAY + 3 * HOUR), 0)
    assert.equal((await remindersOf(monday.id)).length, 1)

    // The Wednesday appointment is cancelled before any reminder: it never gets one.
    const cancel = await api(clinic.scheduler.token).patch(`/appointments/${cancelled.id}`, {
      status: 'cancelled',
      cancelReason: 'Patient travels'
    })
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body))

    // Monday 07:00, 2 h before: the second reminder.
    assert.equal(await moveTo(MONDAY_9 - 2 * HOUR), 1)
    assert.deepEqual(await offsetsOf(monday.id), [1440, 120])

    // Past the appointment: no late reminder (it is still scheduled, not yet a no-show).
    assert.equal(await moveTo(MONDAY_9 + 30 * MIN), 0)
    assert.deepEqual(await offsetsOf(monday.id), [1440, 120])
    assert.equal(
      (await api(clinic.scheduler.token).get(`/appointments/${monday.id}`)).body.status,
      'scheduled'
    )

    // Tuesday 12:00: both of Tuesday 13:00's offsets are due at once (the clock jumped over Monday 13:00): only
    // the latest due one (2 h) is sent, never the stale 24 h one.
    assert.equal(await moveTo(TUESDAY_13 - HOUR), 1)
    assert.deepEqual(await offsetsOf(tuesday.id), [120])

    // Booked at Tuesday 12:00 for 16:00: its 24 h offset was already past, so only the 2 h one comes, at 14:00.
    const late = await book(TUESDAY_13 + 3 * HOUR)
    assert.equal(await moveTo(TUESDAY_13 - HOUR + MIN), 0)
    assert.deepEqual(await offsetsOf(late.id), [])
    assert.equal(await moveTo(TUESDAY_13 + HOUR), 1)
    assert.deepEqual(await offsetsOf(late.id), [120])

    // Thursday, far past everything: the cancelled appointment never got a reminder.
    await moveTo(THURSDAY_9 + 12 * HOUR)
    assert.deepEqual(await offsetsOf(cancelled.id), [])
  })

  it('skips a queued reminder when its appointment is cancelled, checked in or moved, and reminds of the new time', async () => {
    // The clock is now Thursday 21:00 (the test above); these are the next week's.
    const nextMonday = MONDAY_9 + 7 * DAY
    const kept = await book(nextMonday + 4 * HOUR)
    const dropped = await book(nextMonday + 5 * HOUR)
    const arriving = await book(nextMonday + 4 * HOUR + 15 * MIN)
    assert.equal(await moveTo(nextMonday - DAY + 5 * HOUR), 3)
    const [keptReminder] = await remindersOf(kept.id)
    const [droppedReminder] = await remindersOf(dropped.id)
    assert.equal(keptReminder.status, 'queued')
    assert.equal(droppedReminder.status, 'queued')

    const cancel = await api(clinic.scheduler.token).patch(`/appointments/${dropped.id}`, {
      status: 'cancelled',
      cancelReason: 'No longer needed'
    })
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body))
    assert.deepEqual(
      (await remindersOf(dropped.id)).map((n) => [n.status, n.reason]),
      [['skipped', 'no-longer-due']]
    )

    // Checked in (early): its reminder still waiting is no longer due either.
    const checkIn = await api(clinic.scheduler.token).patch(`/appointments/${arriving.id}`, {
      status: 'checked-in'
    })
    assert.equal(checkIn.status, 200, JSON.stringify(checkIn.body))
    assert.deepEqual(
      (await remindersOf(arriving.id)).map((n) => [n.status, n.reason]),
      [['skipped', 'no-longer-due']]
    )

    // Moved to the day after: the queued reminder of the old time is skipped; the new time gets its own.
    const moved = await api(clinic.scheduler.token).patch(`/appointments/${kept.id}`, {
      start: nextMonday + DAY + 4 * HOUR
    })
    assert.equal(moved.status, 200, JSON.stringify(moved.body))
    assert.deepEqual(
      (await remindersOf(kept.id)).map((n) => [n.status, n.reason]),
      [['skipped', 'no-longer-due']]
    )
    assert.equal(await moveTo(nextMonday + 5 * HOUR), 1)
    const after = await remindersOf(kept.id)
    assert.deepEqual(
      after.map((n) => [n.status, n.reason ?? null]),
      [
        ['skipped', 'no-longer-due'],
        ['queued', null]
      ]
    )
    assert.equal(await moveTo(nextMonday + 6 * HOUR), 0)
  })

  it('queues, on the next pass, the booking and cancellation messages a stop between write and trigger cut off', async () => {
    // The clock is now the next Monday 15:00 (the tests above).
    const now = (await api(admin).get('/sandbox/clock')).body.now as number
    const wednesday = now + 2 * DAY - 2 * HOUR
    const toCancel = await book(wednesday)
    const app = server.app
    const deps = depsSlot.require(app)
    // As if the process had stopped right after each write: the triggers do not run.
    notificationTriggers(app, deps, false)
    let lost: { id: string }
    try {
      lost = await book(wednesday + HOUR)
      const cancel = await api(clinic.scheduler.token).patch(`/appointments/${toCancel.id}`, {
        status: 'cancelled',
        cancelReason: 'Changed plans'
      })
      assert.equal(cancel.status, 200, JSON.stringify(cancel.body))
    } finally {
      notificationTriggers(app, deps, true)
    }
    const eventsOf = async (id: string) =>
      (
        await api(patient.token).get(
          `/notifications?ref.id=${id}&channel=email&$sort[createdAt]=1&$sort[channel]=1`
        )
      ).body.data.map((n: Seen) => n.event)
    assert.deepEqual(await eventsOf(lost.id), [])
    assert.deepEqual(await eventsOf(toCancel.id), ['appointment.booked'])
    // A minute later the pass finds them (a trigger in flight is given that minute).
    assert.equal(await moveTo(now + 30_000), 0)
    assert.equal(await moveTo(now + 2 * MIN), 2)
    assert.deepEqual(await eventsOf(lost.id), ['appointment.booked'])
    assert.deepEqual(await eventsOf(toCancel.id), ['appointment.booked', 'appointment.cancelled'])
    assert.equal(await moveTo(now + 3 * MIN), 0, 'once')
  })
})
