// A cancellation's message is written while the appointment's write is stored (unconfirmed until that write is
// known to be stored): driven as clients drive it, against the real local SMTP server and SMS receiver. It goes
// once, even when two cancellations race; a refused cancellation leaves no message; entries a stop left
// unconfirmed are sent once their cancellation is stored and removed when it never was; kill -9 in the window
// (after the entries are written, before the trigger confirms them — in the background, once the PATCH answered)
// loses nothing and sends nothing twice.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { MongoClient } from 'mongodb'
import { restClient, signUp, tempDir, testMongoUrl, waitUntil, type SignedUp } from '../helpers/app'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { startServerProcess, type ServerProcess } from '../helpers/server-process'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp'
import { startSmsReceiver, type TestSmsReceiver } from '../helpers/sms'
import {
  logOf,
  signUpPatient,
  startDeliveryServer,
  waitForLog,
  type DeliveryServer
} from '../helpers/notification-delivery'
import { depsSlot } from '../../src/deps'
import { notificationWorkerOf } from '../../src/ops/jobs'
import { prepareNotification, writeNotification } from '../../src/notifications/queue'
import { UNCONFIRMED_GRACE_MS } from '../../src/notifications/early'

const MIN = 60_000
const DAY = 86_400_000

/** Monday 09:00 UTC at least a week after `now`: bookable on the clinic's weekday schedule. */
const mondayAfter = (now: number) => {
  const day = new Date(now + 7 * DAY)
  const monday = Date.UTC(
    day.getUTCFullYear(),
    day.getUTCMonth(),
    day.getUTCDate() + ((8 - day.getUTCDay()) % 7)
  )
  return monday + 9 * 60 * MIN
}

const cancelSubject = /cancel/i

describe('notifications written ahead of a cancellation', function () {
  this.timeout(60000)
  let env: DeliveryServer
  let clinic: ClinicFixture
  let slot = 0
  let firstSlot: number
  const api = (token?: string) => restClient(env.server.url, token)

  const book = async (patient: SignedUp) => {
    const res = await api(clinic.scheduler.token).post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: patient.account.id,
      start: firstSlot + 15 * MIN * slot++
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body as { id: string }
  }
  const patch = (id: string, body: Record<string, unknown>) =>
    api(clinic.scheduler.token).patch(`/appointments/${id}`, body)
  const cancelledOf = async (patient: SignedUp, appointment: string) =>
    [...(await logOf(env.server.url, patient)).values()].filter(
      (n) => n.event === 'appointment.cancelled' && n.ref.id === appointment
    )
  /** The patient's cancellation entries of `appointment` once both channels' are there (just after the PATCH). */
  const toldOf = async (patient: SignedUp, appointment: string) => {
    let told: Awaited<ReturnType<typeof cancelledOf>> = []
    await waitUntil(
      async () => (told = await cancelledOf(patient, appointment)).length === 2,
      5000,
      'the cancellation told'
    )
    return told
  }
  const storedCancelled = (appointment: string) =>
    depsSlot.require(env.server.app).stores.notifications._find({
      query: { 'ref.id': appointment, event: 'appointment.cancelled' },
      paginate: false
    })

  before(async () => {
    env = await startDeliveryServer()
    clinic = await setupClinic(env.server.url)
    await createSchedule(env.server.url, clinic)
    firstSlot = mondayAfter(env.clock.now())
  })
  after(() => env?.close())

  it('sends a cancellation once by each channel, also when two cancellations race', async () => {
    const patient = await signUpPatient(env.server.url)
    const appointment = await book(patient)
    const answers = await Promise.all([
      patch(appointment.id, { status: 'cancelled', cancelReason: 'Away' }),
      patch(appointment.id, { status: 'cancelled', cancelReason: 'Away too' })
    ])
    assert.deepEqual(
      answers.map((res) => res.status).sort(),
      [200, 409],
      JSON.stringify(answers.map((r) => r.body))
    )
    // Written with the cancellation, confirmed just after it answered; then sent, once each.
    const told = await toldOf(patient, appointment.id)
    assert.deepEqual(told.map((n) => n.channel).sort(), ['email', 'sms'])
    for (const notification of told) {
      const sent = await waitForLog(env.server.url, patient, notification.id, (n) => n.status === 'sent')
      assert.equal(sent.attempts, 1)
      assert.equal(sent.unconfirmed, undefined, 'the mark never leaves the server')
    }
    const mail = await env.smtp.waitFor((m) => m.to === patient.email && cancelSubject.test(m.subject))
    assert.equal(mail.headers['message-id'], `<${told.find((n) => n.channel === 'email').id}@127.0.0.1>`)
    assert.equal(
      env.smtp.messages.filter((m) => m.to === patient.email && cancelSubject.test(m.subject)).length,
      1
    )
    assert.equal(
      env.sms.messages.filter((m) => m.to === patient.account.mobileNo && cancelSubject.test(m.text)).length,
      1
    )
    assert.equal((await storedCancelled(appointment.id)).length, 2)
  })

  it('leaves no message for a cancellation that was refused', async () => {
    const patient = await signUpPatient(env.server.url)
    const appointment = await book(patient)
    for (const status of ['checked-in', 'in-progress', 'completed'])
      assert.equal((await patch(appointment.id, { status })).status, 200, status)
    const refused = await patch(appointment.id, { status: 'cancelled', cancelReason: 'Too late' })
    assert.equal(refused.status, 409, JSON.stringify(refused.body))
    assert.deepEqual(await cancelledOf(patient, appointment.id), [])
    assert.deepEqual(await storedCancelled(appointment.id), [], 'what was written ahead is removed')

    // A cancellation of the same patient afterwards goes alone.
    const other = await book(patient)
    assert.equal((await patch(other.id, { status: 'cancelled', cancelReason: 'Away' })).status, 200)
    const [email] = (await toldOf(patient, other.id)).filter((n) => n.channel === 'email')
    await waitForLog(env.server.url, patient, email.id, (n) => n.status === 'sent')
    const mails = env.smtp.messages.filter((m) => m.to === patient.email && cancelSubject.test(m.subject))
    assert.deepEqual(
      mails.map((m) => m.headers['message-id']),
      [`<${email.id}@127.0.0.1>`]
    )
  })

  it('sends what a stop left unconfirmed once its cancellation is stored, and removes it when it never was', async () => {
    const deps = depsSlot.require(env.server.app)
    const worker = notificationWorkerOf(env.server.app)
    assert.ok(worker)
    await worker.stop()
    const [stored, never] = [await signUpPatient(env.server.url), await signUpPatient(env.server.url)]
    const appointments = { stored: await book(stored), never: await book(never) }
    // As a process stopped between the entries and the end of the write leaves them.
    const writeAhead = async (patient: SignedUp, appointment: string) => {
      const prepared = await prepareNotification(deps, {
        facility: clinic.id,
        event: 'appointment.cancelled',
        recipient: patient.account.id,
        ref: { service: 'appointments', id: appointment },
        subjectKey: appointment,
        vars: {
          patient: { firstName: 'Ada' },
          facility: { name: 'Calendar clinic' },
          link: 'http://console.test'
        }
      })
      assert.ok(prepared)
      return writeNotification(deps, prepared, { unconfirmed: true })
    }
    const left = {
      stored: await writeAhead(stored, appointments.stored.id),
      never: await writeAhead(never, appointments.never.id)
    }
    // The first cancellation was stored (without its trigger); the second never was.
    await deps.stores.appointments._patch(appointments.stored.id, {
      status: 'cancelled',
      cancelReason: 'Away'
    })
    // (on a shared engine an unconfirmed entry may belong to another instance's write for a minute)
    env.clock.advance(UNCONFIRMED_GRACE_MS + MIN)
    await worker.start()
    for (const notification of left.stored)
      await waitForLog(env.server.url, stored, notification.id, (n) => n.status === 'sent')
    await waitUntil(
      async () => (await storedCancelled(appointments.never.id)).length === 0,
      15000,
      'the entries of the cancellation never stored removed'
    )
    const cancellations = (patient: SignedUp) => [
      env.smtp.messages.filter((m) => m.to === patient.email && cancelSubject.test(m.subject)).length,
      env.sms.messages.filter((m) => m.to === patient.account.mobileNo && cancelSubject.test(m.text)).length
    ]
    assert.deepEqual(cancellations(never), [0, 0])
    assert.deepEqual(cancellations(stored), [1, 1])
    assert.equal(left.never.length, 2)
  })
})

describe('notifications written ahead, across kill -9', function () {
  this.timeout(180000)
  let smtp: TestSmtpServer
  let sms: TestSmsReceiver
  let child: ServerProcess | undefined
  const dataDir = tempDir('clinic-notify-ahead-')
  const mongodb = testMongoUrl()
  const env = (fault?: string) => ({
    DATA_DIR: dataDir,
    MONGODB_URL: mongodb,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'clinic@example.test',
    SMS_WEBHOOK_URL: sms.url,
    NOTIFICATION_POLL_INTERVAL_MS: '100',
    NOTIFICATION_LEASE_MS: '3000',
    ...(fault ? { FAULT_AFTER_STEP: fault } : {})
  })

  before(async () => {
    ;[smtp, sms] = await Promise.all([startSmtpServer(), startSmsReceiver()])
  })
  afterEach(async () => {
    await child?.kill()
    child = undefined
  })
  after(async () => {
    await Promise.all([smtp?.close(), sms?.close()])
    if (mongodb) {
      const client = await MongoClient.connect(mongodb)
      await client.db().dropDatabase()
      await client.close()
    }
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  /** A clinic, a patient and their appointment on a server process killed by `fault` when they cancel it. */
  const cancelUntilKilled = async (fault: string) => {
    child = await startServerProcess(env(fault))
    const url = child.url
    const clinic = await setupClinic(url)
    await createSchedule(url, clinic)
    const patient = await signUp(url, { firstName: 'Ada' })
    const booked = await restClient(url, clinic.scheduler.token).post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: patient.account.id,
      start: mondayAfter(Date.now())
    })
    assert.equal(booked.status, 201, JSON.stringify(booked.body))
    const cut = await restClient(url, clinic.scheduler.token)
      .patch(`/appointments/${booked.body.id}`, { status: 'cancelled', cancelReason: 'Away' })
      .then(
        (res) => `answered ${res.status}`,
        () => 'cut'
      )
    // (the entries are confirmed after the PATCH answers: the process dies before or just after its answer)
    assert.match(cut, /^(cut|answered 200)$/)
    const server = child
    await waitUntil(() => server.output().includes(`FAULT ${fault}`), 30000, `the fault ${fault}`)
    await child.kill()
    child = await startServerProcess(env())
    return { url: child.url, clinic, patient, appointment: booked.body.id as string }
  }
  const cancelMails = (patient: SignedUp) =>
    smtp.messages.filter((m) => m.to === patient.email && cancelSubject.test(m.subject))

  it('killed after the entries and the cancellation are stored, before the trigger confirms them: sent once', async () => {
    const { url, patient, appointment } = await cancelUntilKilled('notifications.before-confirm')
    const restarted = await restClient(url, patient.token).get(`/appointments/${appointment}`)
    assert.equal(restarted.body.status, 'cancelled')
    let email: { id: string } | undefined
    await waitUntil(
      async () => {
        email = [...(await logOf(url, patient)).values()].find(
          (n) => n.event === 'appointment.cancelled' && n.channel === 'email' && n.status === 'sent'
        )
        return !!email
      },
      30000,
      'the cancellation sent after the restart'
    )
    const mails = cancelMails(patient)
    assert.equal(mails.length, 1)
    assert.equal(mails[0].headers['message-id'], `<${email?.id}@127.0.0.1>`)
  })

  it('killed once the entries are written, the cancellation stored or not: sent once if it is, else never', async () => {
    const { url, patient, appointment } = await cancelUntilKilled('notifications.written-ahead')
    const restarted = await restClient(url, patient.token).get(`/appointments/${appointment}`)
    assert.equal(restarted.status, 200)
    const cancelledEntries = async () =>
      [...(await logOf(url, patient)).values()].filter((n) => n.event === 'appointment.cancelled')
    if (restarted.body.status === 'cancelled') {
      await waitUntil(
        async () => (await cancelledEntries()).some((n) => n.channel === 'email' && n.status === 'sent'),
        30000,
        'the cancellation sent after the restart'
      )
      assert.equal(cancelMails(patient).length, 1)
    } else {
      assert.equal(restarted.body.status, 'scheduled')
      // Removed by the worker (on a shared engine once the grace of another instance's write is over).
      await waitUntil(async () => (await cancelledEntries()).length === 0, 90000, 'the entries removed')
      assert.equal(cancelMails(patient).length, 0)
    }
  })
})
