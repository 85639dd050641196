// Delivery of queued notifications through the real local SMTP server and SMS receiver: each message goes once,
// with the facility's sender name, a stable Message-ID / idempotency key and the one-click unsubscribe headers;
// a provider error is retried, then `failed` with the reason; a provider back up delivers; the facility's rate
// makes messages wait, never drops them; what fell due while the worker was stopped goes out when it starts.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { MongoClient } from 'mongodb'
import defaults from '../../config/default.json'
import {
  recordEvents,
  restClient,
  socketClient,
  startServer,
  tempDir,
  testMongoUrl,
  waitUntil,
  type SignedUp
} from '../helpers/app'
import { startServerProcess, type ServerProcess } from '../helpers/server-process'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp'
import { startSmsReceiver, type TestSmsReceiver } from '../helpers/sms'
import { LONG_SESSIONS } from '../helpers/subscriptions'
import { setupFacility, type FacilityFixture } from '../helpers/billing'
import {
  deliverySettings,
  logOf,
  queueFor,
  signUpPatient,
  startDeliveryServer,
  waitForLog,
  type DeliveryServer
} from '../helpers/notification-delivery'
import { notificationWorkerOf } from '../../src/ops/jobs'

const MINUTE = 60_000

describe('notification delivery', function () {
  this.timeout(60000)
  let env: DeliveryServer
  let facility: FacilityFixture

  before(async () => {
    env = await startDeliveryServer()
    facility = await setupFacility(env.server.url, 'Delivery clinic')
  })
  after(() => env?.close())

  it('sends each message once: email with its headers, SMS with its idempotency key', async () => {
    const patient = await signUpPatient(env.server.url)
    const written = await queueFor(env.server, facility.id, patient)
    assert.deepEqual(
      written.map((n) => [n.channel, n.status]),
      [
        ['email', 'queued'],
        ['sms', 'queued']
      ]
    )
    const [email, sms] = written
    const sentEmail = await waitForLog(env.server.url, patient, email.id, (n) => n.status === 'sent')
    const sentSms = await waitForLog(env.server.url, patient, sms.id, (n) => n.status === 'sent')
    for (const sent of [sentEmail, sentSms]) {
      assert.equal(sent.attempts, 1)
      assert.equal(typeof sent.sentAt, 'number')
      assert.equal(sent.reason, undefined)
    }

    const mail = await env.smtp.waitFor((m) => m.to === patient.email)
    assert.equal(mail.subject, 'New results from Delivery clinic are ready')
    assert.match(mail.text, /Hello Ada/)
    assert.equal(mail.headers['message-id'], `<${email.id}@127.0.0.1>`)
    assert.match(mail.headers.from, /^"?Your clinic"? <clinic@example\.test>$/)
    assert.equal(mail.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click')
    assert.match(
      mail.headers['list-unsubscribe'],
      new RegExp(`^<${env.server.url}/notifications/unsubscribe\\?token=[A-Za-z0-9_.%-]+>$`)
    )
    const text = await env.sms.waitFor((m) => m.to === patient.account.mobileNo)
    assert.equal(text.idempotencyKey, sms.id)
    assert.match(text.text, /Delivery clinic: your results are ready/)

    // Another patient never reads them.
    const other = await signUpPatient(env.server.url)
    const api = restClient(env.server.url, other.token)
    for (const id of [email.id, sms.id]) assert.equal((await api.get(`/notifications/${id}`)).status, 404)
    const listed = await api.get(`/notifications?recipient=${patient.account.id}`)
    assert.equal(listed.status, 200)
    assert.deepEqual(listed.body.data, [])

    // Another message afterwards goes out too; the first ones were not sent again meanwhile.
    const [later] = await queueFor(env.server, facility.id, patient)
    await waitForLog(env.server.url, patient, later.id, (n) => n.status === 'sent')
    assert.equal(
      env.smtp.messages.filter((m) => m.headers['message-id'] === `<${email.id}@127.0.0.1>`).length,
      1
    )
    assert.equal(env.sms.messages.filter((m) => m.idempotencyKey === sms.id).length, 1)
  })

  it('gives templates the recipient’s unsubscribe link, and the Reply-To of the facility', async () => {
    const app = env.server.app
    const settings = app.get('notifications')
    app.set('notifications', {
      ...settings,
      templates: {
        ...settings.templates,
        'record.finalized.email': { subject: 'Results', body: 'Ready. Unsubscribe: {{unsubscribeLink}}' }
      },
      // (a facility's own settings may name a Reply-To; here the defaults stand in for them)
      defaults: {
        ...settings.defaults,
        senderName: 'Front desk',
        replyTo: 'desk@clinic.test'
      } as typeof settings.defaults
    })
    try {
      const patient = await signUpPatient(env.server.url)
      const [email] = await queueFor(env.server, facility.id, patient)
      await waitForLog(env.server.url, patient, email.id, (n) => n.status === 'sent')
      const mail = await env.smtp.waitFor((m) => m.to === patient.email)
      const link = /Unsubscribe: (\S+)/.exec(mail.text)?.[1]
      assert.ok(link?.startsWith(`${env.server.url}/notifications/unsubscribe?token=`), mail.text)
      assert.equal(mail.headers['reply-to'], 'desk@clinic.test')
      assert.match(mail.headers.from, /^"?Front desk"? <clinic@example\.test>$/)
    } finally {
      app.set('notifications', settings)
    }
  })

  it('retries a provider error, then records `failed` with the reason', async () => {
    const patient = await signUpPatient(env.server.url)
    const other = await setupFacility(env.server.url, 'Failing clinic')
    env.sms.respondWith(() => 503)
    try {
      const [, sms] = await queueFor(env.server, other.id, patient)
      const failed = await waitForLog(env.server.url, patient, sms.id, (n) => n.status === 'failed')
      assert.equal(failed.attempts, 3, 'maxAttempts')
      assert.match(failed.reason, /SMS delivery failed: gateway answered HTTP 503/)
      assert.equal(failed.sentAt ?? null, null)
      const tries = env.sms.messages.filter((m) => m.idempotencyKey === sms.id)
      assert.equal(tries.length, 3, 'one call per attempt, each with the same idempotency key')
    } finally {
      env.sms.respondWith(() => 200)
    }
  })

  it('delivers once the provider is back', async () => {
    const patient = await signUpPatient(env.server.url)
    const connection = socketClient(env.server.url)
    try {
      await connection.client.authenticate({ strategy: 'jwt', accessToken: patient.token })
      const seen = recordEvents(connection.client, 'notifications', ['patched'])
      // The gateway fails the next call, then is back.
      let failures = 1
      env.sms.respondWith(() => (failures-- > 0 ? 500 : 200))
      const [, sms] = await queueFor(env.server, facility.id, patient)
      const sent = await waitForLog(env.server.url, patient, sms.id, (n) => n.status === 'sent')
      assert.equal(sent.attempts, 2)
      assert.equal(sent.reason, undefined)
      await waitUntil(() => seen.filter((e) => e.data.id === sms.id).length >= 2, 5000, 'the realtime events')
      assert.deepEqual(
        seen.filter((e) => e.data.id === sms.id).map((e) => [e.data.status, e.data.attempts, e.data.reason]),
        [
          ['queued', 1, 'SMS delivery failed: gateway answered HTTP 500'],
          ['sent', 2, undefined]
        ]
      )
      assert.equal(env.sms.messages.filter((m) => m.idempotencyKey === sms.id).length, 2)
    } finally {
      connection.close()
      env.sms.respondWith(() => 200)
    }
  })

  it('an address that can never take mail fails after the attempts (SMTP refuses the connection)', async () => {
    const broken = await startDeliveryServer(
      {},
      { messaging: { ...defaults.messaging, smtpUrl: 'smtp://127.0.0.1:9?ignoreTLS=true', timeoutMs: 2000 } }
    )
    try {
      const clinic = await setupFacility(broken.server.url, 'No mail clinic')
      const patient = await signUpPatient(broken.server.url)
      const [email] = await queueFor(broken.server, clinic.id, patient)
      const failed = await waitForLog(broken.server.url, patient, email.id, (n) => n.status === 'failed')
      assert.equal(failed.attempts, 3)
      assert.match(failed.reason, /^Email delivery failed: /)
    } finally {
      await broken.close()
    }
  })

  it('holds messages over the facility’s rate until the next minute, never dropping them', async () => {
    const app = env.server.app
    const settings = app.get('notifications')
    const busy = await setupFacility(env.server.url, 'Busy clinic')
    // The minute starts now on the app's clock (the counter's window), so the test does not straddle two.
    env.clock.advance(MINUTE - (env.clock.now() % MINUTE) + 1000)
    app.set('notifications', { ...settings, ratePerMinute: 3 })
    try {
      const patients = await Promise.all([1, 2, 3].map(() => signUpPatient(env.server.url)))
      const written = (await Promise.all(patients.map((p) => queueFor(env.server, busy.id, p)))).flat()
      assert.equal(written.length, 6)
      // Another facility is not held by this one's rate.
      const elsewhere = await signUpPatient(env.server.url)
      const [free] = await queueFor(env.server, facility.id, elsewhere)
      await waitForLog(env.server.url, elsewhere, free.id, (n) => n.status === 'sent')

      const states = async () =>
        (await Promise.all(patients.map((p) => logOf(env.server.url, p)))).flatMap((log) => [...log.values()])
      const minuteEnd = env.clock.now() - (env.clock.now() % MINUTE) + MINUTE
      await waitUntil(
        async () => {
          const all = await states()
          return (
            all.filter((n) => n.status === 'sent').length === 3 &&
            all.filter((n) => n.status === 'queued' && n.nextAttemptAt >= minuteEnd).length === 3
          )
        },
        15000,
        'three sent, three waiting for the next minute'
      )
      // The next minute: the rest go.
      env.clock.advance(MINUTE)
      notificationWorkerOf(app)?.nudge()
      await waitUntil(async () => (await states()).every((n) => n.status === 'sent'), 15000, 'all six sent')
      const ids = new Set(written.map((n) => n.id))
      const mails = env.smtp.messages.filter((m) =>
        ids.has(/^<([^@]+)@/.exec(m.headers['message-id'] ?? '')?.[1] ?? '')
      )
      const texts = env.sms.messages.filter((m) => ids.has(m.idempotencyKey ?? ''))
      assert.equal(mails.length + texts.length, 6, 'each once')
    } finally {
      app.set('notifications', settings)
    }
  })

  it('a stop waits for sends in flight a bounded time, then leaves them to their lease', async () => {
    const worker = notificationWorkerOf(env.server.app)
    assert.ok(worker)
    const patient = await signUpPatient(env.server.url)
    // The gateway takes the text message and does not answer (the sender gives up after MESSAGING_TIMEOUT_MS, 10 s).
    let hang = true
    env.sms.respondWith(() => (hang ? 'hang' : 200))
    try {
      const [, sms] = await queueFor(env.server, facility.id, patient)
      await env.sms.waitFor((m) => m.idempotencyKey === sms.id)
      await worker.stop(200)
      const held = (await logOf(env.server.url, patient)).get(sms.id)
      assert.deepEqual([held.status, held.attempts], ['queued', 0], 'nothing recorded for the cut send')
      hang = false
      await worker.start()
      const sent = await waitForLog(env.server.url, patient, sms.id, (n) => n.status === 'sent')
      assert.equal(sent.attempts, 1)
      assert.deepEqual(
        [
          ...new Set(
            env.sms.messages.filter((m) => m.to === patient.account.mobileNo).map((m) => m.idempotencyKey)
          )
        ],
        [sms.id]
      )
    } finally {
      env.sms.respondWith(() => 200)
    }
  })

  it('sends at start what fell due while the worker was stopped', async () => {
    const worker = notificationWorkerOf(env.server.app)
    assert.ok(worker)
    await worker.stop()
    const patient = await signUpPatient(env.server.url)
    let written
    try {
      written = await queueFor(env.server, facility.id, patient, { dueAt: env.clock.now() + 10 * MINUTE })
      env.clock.advance(11 * MINUTE)
      const log = await logOf(env.server.url, patient)
      assert.ok([...log.values()].every((n) => n.status === 'queued'))
    } finally {
      await worker.start()
    }
    for (const notification of written)
      await waitForLog(env.server.url, patient, notification.id, (n) => n.status === 'sent')
  })
})

describe('notification delivery across kill -9', function () {
  this.timeout(120000)
  let smtp: TestSmtpServer
  let sms: TestSmsReceiver
  let child: ServerProcess | undefined
  const dataDir = tempDir('clinic-notify-crash-')
  const mongodb = testMongoUrl()

  before(async () => {
    ;[smtp, sms] = await Promise.all([startSmtpServer(), startSmsReceiver()])
  })
  after(async () => {
    await child?.kill()
    await Promise.all([smtp?.close(), sms?.close()])
    if (mongodb) {
      const client = await MongoClient.connect(mongodb)
      await client.db().dropDatabase()
      await client.close()
    }
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('a send cut by kill -9 goes out after the restart, with the same key, and is recorded once', async () => {
    // Queued by a server whose worker is stopped: nothing is sent before the process under test runs.
    const first = await startServer({
      dataDir,
      mongodb,
      sessions: LONG_SESSIONS,
      messaging: { ...defaults.messaging, smtpUrl: smtp.url, smsWebhookUrl: sms.url },
      notifications: deliverySettings()
    })
    let patient: SignedUp
    let written: Awaited<ReturnType<typeof queueFor>>
    try {
      await notificationWorkerOf(first.app)?.stop()
      const clinic = await setupFacility(first.url, 'Crash clinic')
      patient = await signUpPatient(first.url)
      written = await queueFor(first, clinic.id, patient)
      assert.equal(written.length, 2)
    } finally {
      await first.close({ keep: true })
    }
    const [email, text] = written
    const env = {
      DATA_DIR: dataDir,
      MONGODB_URL: mongodb,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'clinic@example.test',
      SMS_WEBHOOK_URL: sms.url,
      NOTIFICATION_POLL_INTERVAL_MS: '100',
      // (on MongoDB the restarted instance waits for the lease of the killed one)
      NOTIFICATION_LEASE_MS: '3000',
      NOTIFICATION_RETRY_DELAYS_MS: '[100]',
      NODE_CONFIG: JSON.stringify({ notifications: { defaults: { channels: { email: true, sms: true } } } })
    }
    // The gateway takes the first text message and never answers: the process is killed while it waits.
    sms.respondWith((n) => (n === 1 ? 'hang' : 200))
    child = await startServerProcess(env)
    await sms.waitForCount(1, 15000)
    await child.kill('SIGKILL')
    child = await startServerProcess(env)
    const url = child.url
    const sent = await Promise.all(
      [email, text].map((n) => waitForLog(url, patient, n.id, (found) => found.status === 'sent'))
    )
    assert.deepEqual(
      sent.map((n) => n.attempts),
      [1, 1],
      'the cut attempt was never recorded'
    )
    // The text message went twice (at least once), both times with the same idempotency key.
    const texts = sms.messages.filter((m) => m.to === patient.account.mobileNo)
    assert.equal(texts.length, 2)
    assert.deepEqual([...new Set(texts.map((m) => m.idempotencyKey))], [text.id])
    // The email: one Message-ID however many times it went.
    const mails = smtp.messages.filter((m) => m.to === patient.email)
    assert.ok(mails.length >= 1)
    assert.deepEqual([...new Set(mails.map((m) => m.headers['message-id']))], [`<${email.id}@127.0.0.1>`])
  })
})
