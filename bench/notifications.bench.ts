// Notifications on the embedded engine, the server in this process on a fixed clock (Friday 5 March 2027, 12:00 UTC):
// a facility of 20 providers with weekday schedules, one patient with an email address (email on, SMS off: each
// event writes two log entries, the email queued and the SMS skipped `channel-off`).
// (a) Queueing: `queueNotification` (render, once-only check under the key's lock, the log entry, its announce)
//     with distinct subjects, one at a time and 10 at once: notifications written per second. Then the reminder
//     pass over one day's 560 appointments (its clock set to that day's midnight, so each gets its 24 h reminder):
//     reminders queued per second. The delivery worker is stopped for (a) and (b): they measure the queueing.
// (c) Sending: a second server whose email goes to a real SMTP server on loopback (test/helpers/smtp.ts); SENT
//     notifications are queued with the worker stopped, then the worker is started and timed until every one is
//     `sent` (claim with a lease, re-read the account, send, record): messages sent per second, against the bare
//     transport (the same messenger sending the same number of emails, 8 at a time like the worker) in this run.
// (b) The cost of the triggers on `PATCH /appointments`: status moves (`checked-in`, which tells nothing, and
//     `cancelled`, which queues `appointment.cancelled`), one request at a time, alternately with the triggers
//     subscribed and unsubscribed on the same server: p50 latency of each, median of rounds; the target is a
//     ratio ≤ 1.10. (A cancellation's log entries are written while the appointment's change is stored — on the
//     write's `record.changing`, src/notifications/early.ts — so their commit overlaps the appointment's.)
// BENCH_STORE_SYNC=os runs it with writes answered once handed to the OS (no fdatasync per commit), to tell the
// cost of the durable commits from the rest.
import { signUp, startServer, type SignedUp } from '../test/helpers/app'
import { addMember } from '../test/helpers/billing'
import { depsSlot } from '../src/deps'
import { queueNotification } from '../src/notifications/queue'
import { notificationTriggers } from '../src/notifications/triggers'
import { reminderPass } from '../src/notifications/reminders'
import defaults from '../config/default.json'
import { startSmtpServer } from '../test/helpers/smtp'
import { notificationWorkerOf } from '../src/ops/jobs'
import { createMessenger } from '../src/providers/messaging'
import { call, jsonHeaders, round } from './lib'

const PROVIDERS = 20
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const PATCHES = Number(process.env.BENCH_PATCHES ?? 150)
const QUEUED = Number(process.env.BENCH_QUEUED ?? 400)
const CONCURRENCY = 10
const SENT = Number(process.env.BENCH_SENT ?? 300)

const MIN = 60_000
const DAY = 86_400_000
const NOW = Date.UTC(2027, 2, 5, 12, 0)
// Monday 8 March 2027 00:00 UTC: the first bookable week.
const WEEK = Date.UTC(2027, 2, 8)
const weekdays = [1, 2, 3, 4, 5].flatMap((day) => [
  { day, start: '09:00', end: '12:00' },
  { day, start: '13:00', end: '17:00' }
])
const dailyStarts = [
  ...Array.from({ length: 12 }, (_, i) => 9 * 60 + i * 15),
  ...Array.from({ length: 16 }, (_, i) => 13 * 60 + i * 15)
]

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/** `n` tasks by `concurrency` workers taking the next index in turn: tasks per second. */
const perSecond = async (n: number, concurrency: number, task: (i: number) => Promise<unknown>) => {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) await task(i)
    })
  )
  return round(n / ((performance.now() - started) / 1000), 1)
}

export async function run() {
  const server = await startServer({
    mongodb: '',
    ...(process.env.BENCH_STORE_SYNC ? { storeSync: process.env.BENCH_STORE_SYNC as 'os' } : {}),
    clock: { now: () => NOW },
    appointments: { jobIntervalMs: 0 },
    notifications: { reminderIntervalMs: 0 }
  })
  const base = server.url
  const deps = depsSlot.require(server.app)
  // (a) and (b) measure the queueing: the worker would only mark these messages failed (no transport here).
  await notificationWorkerOf(server.app)?.stop()
  const owner = await signUp(base, {
    email: 'owner@notifications-bench.test',
    organization: { name: 'Bench notified clinic', type: 'facility' }
  })
  const facility = owner.organization.id as string
  const patient = await signUp(base, { email: 'patient@notifications-bench.test', firstName: 'Ada' })
  const providers: SignedUp[] = []
  for (let i = 0; i < PROVIDERS; i++) {
    const provider = await signUp(base, { email: `provider-${i}@notifications-bench.test` })
    await addMember(base, owner, facility, provider, { roles: ['physician'] })
    providers.push(provider)
  }
  for (const provider of providers)
    await call(
      base,
      'POST',
      '/schedules',
      { facility, provider: provider.account.id, weekly: weekdays },
      owner.token
    )

  // Bookings: slot i is provider i mod 20 on the i-th (day, time) of `week` onwards.
  const bookWeekFrom = (week: number) => {
    let next = 0
    return async () => {
      const i = next++
      const k = Math.floor(i / PROVIDERS)
      const day = Math.floor(k / 28)
      const start =
        WEEK + (week + Math.floor(day / 5)) * 7 * DAY + (day % 5) * DAY + dailyStarts[k % 28] * MIN
      const booked = await call(
        base,
        'POST',
        '/appointments',
        { facility, provider: providers[i % PROVIDERS].account.id, patient: patient.account.id, start },
        owner.token
      )
      return booked.id as string
    }
  }

  // (a) Queueing, directly.
  let subject = 0
  const queueOne = () =>
    queueNotification(deps, {
      facility,
      event: 'record.finalized',
      recipient: patient.account.id,
      ref: { service: 'medical-records', id: `bench-${subject}` },
      subjectKey: `bench-${subject++}`,
      vars: { patient: { firstName: 'Ada' }, facility: { name: 'Bench notified clinic' }, link: base }
    })
  await perSecond(50, 1, queueOne)
  const queueRounds: { sequential: number; concurrent: number }[] = []
  for (let r = 0; r < ROUNDS; r++)
    queueRounds.push({
      // Each call writes two log entries (email queued, SMS skipped).
      sequential: round((await perSecond(QUEUED, 1, queueOne)) * 2, 1),
      concurrent: round((await perSecond(QUEUED, CONCURRENCY, queueOne)) * 2, 1)
    })

  // The reminder pass over one full day (Monday of the first week: 20 providers × 28 slots).
  const bookFirstWeek = bookWeekFrom(0)
  for (let i = 0; i < PROVIDERS * 28; i++) await bookFirstWeek()
  const passStarted = performance.now()
  const reminded = await reminderPass({ ...deps, clock: { now: () => WEEK } })
  const passMs = performance.now() - passStarted

  // (b) PATCH /appointments with and without the triggers. Appointments from the second week on, booked ahead.
  const bookLater = bookWeekFrom(1)
  const pools: Record<string, string[]> = {}
  const moves = { checkIn: { status: 'checked-in' }, cancel: { status: 'cancelled', cancelReason: 'Bench' } }
  for (const move of Object.keys(moves))
    for (const triggers of ['on', 'off']) {
      const ids: string[] = []
      for (let i = 0; i < (ROUNDS + 1) * PATCHES; i++) ids.push(await bookLater())
      pools[`${move}:${triggers}`] = ids
    }
  const patchOne = async (pool: string[], body: unknown) => {
    const id = pool.pop()
    const started = performance.now()
    const response = await fetch(`${base}/appointments/${id}`, {
      method: 'PATCH',
      headers: jsonHeaders(owner.token),
      body: JSON.stringify(body)
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`PATCH ${id}: ${response.status} ${text}`)
    return performance.now() - started
  }
  const p50 = (values: number[]) => round(median(values), 3)
  const patching: Record<string, unknown> = {}
  for (const [move, body] of Object.entries(moves)) {
    // Requests alternate with and without the triggers (one subscription toggled between them), so drift and
    // bursts of load from elsewhere fall on both alike; each round is PATCHES pairs, the figure the median round.
    const rounds: { withMs: number; withoutMs: number }[] = []
    for (let r = 0; r <= ROUNDS; r++) {
      const withTriggers: number[] = []
      const without: number[] = []
      for (let i = 0; i < PATCHES; i++) {
        // (which goes first alternates too: neither warms the other's way)
        for (const on of i % 2 ? [true, false] : [false, true]) {
          notificationTriggers(server.app, deps, on)
          const ms = await patchOne(pools[`${move}:${on ? 'on' : 'off'}`], body)
          ;(on ? withTriggers : without).push(ms)
        }
      }
      // The first round warms up, not counted.
      if (r > 0) rounds.push({ withMs: p50(withTriggers), withoutMs: p50(without) })
    }
    notificationTriggers(server.app, deps, true)
    const withMs = median(rounds.map((x) => x.withMs))
    const withoutMs = median(rounds.map((x) => x.withoutMs))
    patching[move] = {
      body,
      p50msWithTriggers: withMs,
      p50msWithout: withoutMs,
      // Time per PATCH with the triggers over time without: the cost (target ≤ 1.10).
      costRatio: round(withMs / withoutMs, 3),
      rounds
    }
  }
  const logged = await deps.stores.notifications._find({
    query: { $limit: 0 },
    paginate: { default: 10, max: 10 }
  })
  await server.close()
  const sending = await sendingFigures()

  return {
    name: 'notifications',
    engine: 'embedded',
    note: 'server in process on the embedded engine; (a)/(b) with the worker stopped, (c) the worker against the bare messenger; rounds alternate, median round; every figure of this run',
    queueing: {
      call: 'queueNotification (email queued + SMS skipped: 2 log entries per call)',
      entriesPerSecondSequential: median(queueRounds.map((r) => r.sequential)),
      entriesPerSecondConcurrent: median(queueRounds.map((r) => r.concurrent)),
      concurrency: CONCURRENCY,
      rounds: queueRounds
    },
    reminderPass: {
      appointments: PROVIDERS * 28,
      reminded,
      ms: round(passMs, 1),
      remindersPerSecond: round(reminded / (passMs / 1000), 1)
    },
    patchAppointments: { patchesPerRound: PATCHES, ...patching },
    sending,
    notificationsLogged: 'total' in logged ? logged.total : undefined
  }
}

/** (c) The delivery worker's throughput to a real SMTP server, against the bare messenger in the same run. */
async function sendingFigures() {
  const smtp = await startSmtpServer()
  const server = await startServer({
    mongodb: '',
    clock: { now: () => NOW },
    appointments: { jobIntervalMs: 0 },
    messaging: { ...defaults.messaging, smtpUrl: smtp.url, mailFrom: 'bench@notifications-bench.test' },
    notifications: {
      ...defaults.notifications,
      reminderIntervalMs: 0,
      pollIntervalMs: 20,
      ratePerMinute: 1_000_000
    }
  })
  try {
    const deps = depsSlot.require(server.app)
    const worker = notificationWorkerOf(server.app)
    if (!worker) throw new Error('no delivery worker')
    await worker.stop()
    const owner = await signUp(server.url, {
      email: 'owner@sending-bench.test',
      organization: { name: 'Bench sending clinic', type: 'facility' }
    })
    const patient = await signUp(server.url, { email: 'patient@sending-bench.test', firstName: 'Ada' })
    for (let i = 0; i < SENT; i++)
      await queueNotification(deps, {
        facility: owner.organization.id as string,
        event: 'record.finalized',
        recipient: patient.account.id,
        ref: { service: 'medical-records', id: `sent-${i}` },
        subjectKey: `sent-${i}`,
        vars: { patient: { firstName: 'Ada' }, facility: { name: 'Bench sending clinic' }, link: server.url }
      })
    const sentCount = async () =>
      (
        (await deps.stores.notifications._find({
          query: { status: 'sent', $limit: 0 },
          paginate: { default: 10, max: 10 }
        })) as { total: number }
      ).total
    const started = performance.now()
    await worker.start()
    while ((await sentCount()) < SENT) await new Promise((resolve) => setTimeout(resolve, 20))
    const workerMs = performance.now() - started

    // The bare transport: the same messenger, the same emails, 8 at a time.
    const messenger = createMessenger(
      { smtpUrl: smtp.url, mailFrom: 'bench@notifications-bench.test' },
      () => undefined
    )
    const bareStarted = performance.now()
    let next = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < SENT) {
          const i = next++
          await messenger.send({
            to: { email: 'patient@sending-bench.test' },
            subject: 'New results are ready',
            text: `Hello Ada, ${i}`
          })
        }
      })
    )
    const bareMs = performance.now() - bareStarted
    const sentPerSecond = round(SENT / (workerMs / 1000), 1)
    const barePerSecond = round(SENT / (bareMs / 1000), 1)
    return {
      messages: SENT,
      sentPerSecond,
      bareMessengerPerSecond: barePerSecond,
      ratio: round(sentPerSecond / barePerSecond, 3),
      smtpReceived: smtp.messages.length
    }
  } finally {
    await server.close()
    await smtp.close()
  }
}
