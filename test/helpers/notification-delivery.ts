// Notification delivery fixtures: a server whose messages go to the real local SMTP server and SMS receiver (both
// channels on, fast polls and retries, a movable clock), a patient with an email and a mobile number, and a
// notification queued for them as the events that notify queue one.
import defaults from '../../config/default.json'
import { depsSlot } from '../../src/deps'
import { queueNotification, type NotificationRequest } from '../../src/notifications/queue'
import { restClient, signUp, startServer, waitUntil, type SignedUp, type TestServer } from './app'
import { startSmtpServer, type TestSmtpServer } from './smtp'
import { startSmsReceiver, type TestSmsReceiver } from './sms'
import { LONG_SESSIONS, testClock, type TestClock } from './subscriptions'

export interface DeliveryServer {
  server: TestServer
  smtp: TestSmtpServer
  sms: TestSmsReceiver
  clock: TestClock
  close(): Promise<void>
}

/** The delivery settings of the tests: short retries and polls, both channels on. */
export const deliverySettings = (overrides: Record<string, unknown> = {}) => ({
  ...defaults.notifications,
  maxAttempts: 3,
  retryDelaysMs: [50, 100],
  pollIntervalMs: 100,
  leaseMs: 2000,
  defaults: { ...defaults.notifications.defaults, channels: { email: true, sms: true } },
  ...overrides
})

export const startDeliveryServer = async (
  notifications: Record<string, unknown> = {},
  overrides: Record<string, unknown> = {}
): Promise<DeliveryServer> => {
  const [smtp, sms] = await Promise.all([startSmtpServer(), startSmsReceiver()])
  const clock = testClock()
  const server = await startServer({
    clock,
    sessions: LONG_SESSIONS,
    messaging: {
      ...defaults.messaging,
      smtpUrl: smtp.url,
      mailFrom: 'clinic@example.test',
      smsWebhookUrl: sms.url
    },
    notifications: deliverySettings(notifications),
    ...overrides
  })
  return {
    server,
    smtp,
    sms,
    clock,
    async close() {
      await server.close()
      await Promise.all([smtp.close(), sms.close()])
    }
  }
}

let mobile = 1000
/** A patient with an email and a mobile number. */
export const signUpPatient = (url: string) =>
  signUp(url, { firstName: 'Ada', mobileNo: `+63917123${String(++mobile).padStart(4, '0')}` })

let subject = 0
/** Queues a "results are ready" notification for `patient` (both channels, as the facility's settings say). */
export const queueFor = (
  server: TestServer,
  facility: string,
  patient: SignedUp,
  extra: Partial<NotificationRequest> = {}
) => {
  const key = `r${++subject}`
  return queueNotification(depsSlot.require(server.app), {
    facility,
    event: 'record.finalized',
    recipient: patient.account.id,
    ref: { service: 'medical-records', id: key },
    subjectKey: key,
    vars: {
      patient: { firstName: 'Ada' },
      facility: { name: 'Delivery clinic' },
      link: 'http://console.test/r'
    },
    ...extra
  })
}

/** The patient's notifications as they read them, by id. */
export const logOf = async (url: string, patient: SignedUp) => {
  const res = await restClient(url, patient.token).get('/notifications?$limit=100')
  if (res.status !== 200) throw new Error(`GET /notifications: ${res.status} ${JSON.stringify(res.body)}`)
  return new Map<string, any>(res.body.data.map((n: any) => [n.id, n]))
}

/** Waits until the patient reads notification `id` in a state `done` accepts; answers it. */
export const waitForLog = async (
  url: string,
  patient: SignedUp,
  id: string,
  done: (notification: any) => boolean,
  what = 'the notification'
) => {
  let found: any
  await waitUntil(
    async () => {
      found = (await logOf(url, patient)).get(id)
      return !!found && done(found)
    },
    15000,
    what
  )
  return found
}
