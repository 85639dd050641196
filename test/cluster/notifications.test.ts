// Notification delivery on two instances sharing one MongoDB and one Redis (MONGODB_URL when set, else the MongoDB
// emulator started here; redis-server started here): both workers look for the same due notifications, and only
// the lease — a conditional write decided by the store — keeps a message from going twice; the facility's rate is
// one counter in Redis, so it holds across the instances.
import assert from 'node:assert/strict'
import defaults from '../../config/default.json'
import { waitUntil, type TestServer } from '../helpers/app'
import { setupFacility } from '../helpers/billing'
import { startSharedStore, type SharedStore } from '../helpers/cluster'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp'
import { startSmsReceiver, type TestSmsReceiver } from '../helpers/sms'
import { LONG_SESSIONS, testClock } from '../helpers/subscriptions'
import { deliverySettings, logOf, queueFor, signUpPatient } from '../helpers/notification-delivery'

const MINUTE = 60_000

describe('notification delivery on two instances', function () {
  this.timeout(60000)
  let store: SharedStore
  let smtp: TestSmtpServer
  let sms: TestSmsReceiver
  let a: TestServer
  let b: TestServer
  const clock = testClock()

  before(async () => {
    store = await startSharedStore('notify')
    ;[smtp, sms] = await Promise.all([startSmtpServer(), startSmsReceiver()])
    ;[a, b] = await store.startPair({
      clock,
      sessions: LONG_SESSIONS,
      messaging: {
        ...defaults.messaging,
        smtpUrl: smtp.url,
        mailFrom: 'clinic@example.test',
        smsWebhookUrl: sms.url
      },
      // Both look often, so they meet on the same notifications.
      notifications: deliverySettings({ pollIntervalMs: 20 })
    })
  })
  after(async () => {
    await store?.stop()
    await Promise.all([smtp?.close(), sms?.close()])
  })

  const messageIdOf = (header: string | undefined) => /^<([^@]+)@/.exec(header ?? '')?.[1]

  it('sends each message once, whichever instance queued it', async () => {
    const clinic = await setupFacility(a.url, 'Paired clinic')
    const patients = await Promise.all(
      Array.from({ length: 12 }, (_, i) => signUpPatient(i % 2 ? b.url : a.url))
    )
    const written = (
      await Promise.all(patients.map((patient, i) => queueFor(i % 2 ? b : a, clinic.id, patient)))
    ).flat()
    assert.equal(written.length, 24)
    await waitUntil(
      async () =>
        (await Promise.all(patients.map((p, i) => logOf(i % 2 ? a.url : b.url, p))))
          .flatMap((log) => [...log.values()])
          .every((n) => n.status === 'sent'),
      30000,
      'all sent'
    )
    const ids = new Set(written.map((n) => n.id))
    const mails = smtp.messages
      .map((m) => messageIdOf(m.headers['message-id']))
      .filter((id) => ids.has(id ?? ''))
    const texts = sms.messages.map((m) => m.idempotencyKey).filter((id) => ids.has(id ?? ''))
    assert.equal(mails.length, 12, 'one email each')
    assert.equal(new Set(mails).size, 12)
    assert.equal(texts.length, 12, 'one text message each')
    assert.equal(new Set(texts).size, 12)
    for (const patient of patients) {
      const log = [...(await logOf(a.url, patient)).values()]
      assert.deepEqual(
        log.map((n) => n.attempts),
        [1, 1]
      )
    }
  })

  it('holds the facility’s rate across both instances', async () => {
    const busy = await setupFacility(b.url, 'Busy paired clinic')
    // The minute starts now on the app's clock (the counter's window), so the test does not straddle two.
    clock.advance(MINUTE - (clock.now() % MINUTE) + 1000)
    const settings = a.app.get('notifications')
    for (const server of [a, b]) server.app.set('notifications', { ...settings, ratePerMinute: 4 })
    try {
      const patients = await Promise.all([1, 2, 3, 4, 5].map(() => signUpPatient(a.url)))
      const written = (
        await Promise.all(patients.map((patient, i) => queueFor(i % 2 ? b : a, busy.id, patient)))
      ).flat()
      assert.equal(written.length, 10)
      const all = async () =>
        (await Promise.all(patients.map((p) => logOf(a.url, p)))).flatMap((log) => [...log.values()])
      const count = (list: any[], status: string) => list.filter((n) => n.status === status).length
      const minuteEnd = clock.now() - (clock.now() % MINUTE) + MINUTE
      await waitUntil(
        async () => {
          const list = await all()
          return (
            count(list, 'sent') === 4 &&
            list.filter((n) => n.status === 'queued' && n.nextAttemptAt >= minuteEnd).length === 6
          )
        },
        20000,
        'four sent, six waiting for the next minute'
      )
      clock.advance(MINUTE)
      await waitUntil(async () => count(await all(), 'sent') === 8, 20000, 'four more in the next minute')
      assert.equal(count(await all(), 'queued'), 2)
      clock.advance(MINUTE)
      await waitUntil(async () => count(await all(), 'sent') === 10, 20000, 'the last two')
    } finally {
      for (const server of [a, b]) server.app.set('notifications', settings)
    }
  })
})
