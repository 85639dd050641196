// Quiet hours, end to end over HTTP with the real local SMTP server and the sandbox clock: a message due inside the
// facility's quiet hours waits (`quiet-hours-wait`) until they end, in the facility's time zone, and then goes out
// once; a reminder never waits past its appointment — inside quiet hours that end after the start, it goes at once.
import assert from 'node:assert/strict'
import { http, restClient, waitUntil } from '../helpers/app'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { startDeliveryServer, type DeliveryServer } from '../helpers/notification-delivery'
import { ADMIN } from '../helpers/subscriptions'

const MIN = 60_000
const HOUR = 60 * MIN
// Friday 2027-03-05 12:00 UTC = 20:00 in Manila (UTC+8, no daylight saving).
const NOW = Date.UTC(2027, 2, 5, 12, 0)
// Monday 2027-03-08 09:00 in Manila.
const MONDAY_9_MANILA = Date.UTC(2027, 2, 8, 1, 0)

describe('notification quiet hours', function () {
  this.timeout(60000)
  let env: DeliveryServer
  let clinic: ClinicFixture
  let admin: string
  const api = (token?: string) => restClient(env.server.url, token)

  before(async () => {
    env = await startDeliveryServer(
      {},
      { admin: ADMIN, sandboxClock: true, clock: { now: () => NOW }, appointments: { jobIntervalMs: 0 } }
    )
    clinic = await setupClinic(env.server.url)
    const zone = await api(clinic.owner.token).patch(`/organizations/${clinic.id}`, {
      timeZone: 'Asia/Manila'
    })
    assert.equal(zone.status, 200, JSON.stringify(zone.body))
    await createSchedule(env.server.url, clinic)
    const login = await http(env.server.url, 'POST', '/authentication', {
      body: { strategy: 'local', ...ADMIN }
    })
    admin = login.body.accessToken
  })
  after(() => env.close())

  const notificationsOf = async (appointment: string, event: string) =>
    (await api(clinic.patient.token).get(`/notifications?ref.id=${appointment}&event=${event}&channel=email`))
      .body.data as {
      status: string
      reason?: string
      nextAttemptAt?: number | null
      sentAt?: number | null
    }[]

  it('holds a booking message until the quiet hours end (facility time), then sends it once', async () => {
    // 19:00–07:00 in Manila: Friday 20:00 there is inside.
    const settings = await api(clinic.owner.token).post('/notification-settings', {
      facility: clinic.id,
      quietHours: { start: '19:00', end: '07:00' }
    })
    assert.equal(settings.status, 201, JSON.stringify(settings.body))
    const booked = await api(clinic.scheduler.token).post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: clinic.patient.account.id,
      start: MONDAY_9_MANILA
    })
    assert.equal(booked.status, 201, JSON.stringify(booked.body))
    const [waiting] = await notificationsOf(booked.body.id, 'appointment.booked')
    assert.equal(waiting.status, 'queued')
    assert.equal(waiting.reason, 'quiet-hours-wait')
    // Saturday 07:00 in Manila = Friday 23:00 UTC.
    assert.equal(waiting.nextAttemptAt, Date.UTC(2027, 2, 5, 23, 0))
    await new Promise((resolve) => setTimeout(resolve, 400))
    assert.equal(
      env.smtp.messages.filter((m) => m.to === clinic.patient.email).length,
      0,
      'nothing during the quiet hours'
    )

    const moved = await api(admin).patch('/sandbox/clock', { now: Date.UTC(2027, 2, 5, 23, 0) })
    assert.equal(moved.status, 200, JSON.stringify(moved.body))
    await waitUntil(
      async () => (await notificationsOf(booked.body.id, 'appointment.booked'))[0].status === 'sent',
      10_000,
      'the message sent after the quiet hours'
    )
    const mails = env.smtp.messages.filter((m) => m.to === clinic.patient.email)
    assert.equal(mails.length, 1)
    assert.match(mails[0].subject, /appointment/i)
  })

  it('never holds a reminder past its appointment: inside quiet hours that end after the start, it goes at once', async () => {
    // 05:00–10:00 in Manila: the 2-hour reminder of a 09:00 appointment (due 07:00) falls inside, and the quiet hours
    // end after the appointment starts.
    const settings = await api(clinic.owner.token).post('/notification-settings', {
      facility: clinic.id,
      quietHours: { start: '05:00', end: '10:00' },
      reminderOffsetsMinutes: [120]
    })
    assert.equal(settings.status, 201, JSON.stringify(settings.body))
    const booked = await api(clinic.scheduler.token).post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: clinic.patient.account.id,
      start: MONDAY_9_MANILA + 30 * MIN
    })
    assert.equal(booked.status, 201, JSON.stringify(booked.body))
    const due = MONDAY_9_MANILA + 30 * MIN - 2 * HOUR
    const moved = await api(admin).patch('/sandbox/clock', { now: due })
    assert.equal(moved.status, 200, JSON.stringify(moved.body))
    // (the first test's 09:00 appointment is reminded by the same pass)
    assert.equal(moved.body.ran.find((r: { job: string }) => r.job === 'reminders')?.changed, 2)
    await waitUntil(
      async () => (await notificationsOf(booked.body.id, 'appointment.reminder'))[0]?.status === 'sent',
      10_000,
      'the reminder sent at once'
    )
    const [reminder] = await notificationsOf(booked.body.id, 'appointment.reminder')
    assert.equal(reminder.reason, undefined)
    assert.ok((reminder.sentAt ?? Infinity) < MONDAY_9_MANILA + 30 * MIN)
  })
})
