// Every start-up and shut-down job, started from here and nowhere else: once the store, Redis and the admin
// account are ready (src/app.ts), the jobs start in the order listed; on shut-down, after requests drained
// (src/ops/lifecycle.ts), they stop in the reverse order, before the store closes. A new job goes in this list.
// This is the top layer: it builds each job from the app's dependencies (the domain never imports it).
import type { Application } from '../declarations'
import { depsSlot } from '../deps'
import { appSlot } from '../runtime'
import type { Job } from '../jobs/job'
import { WebhookWorker } from '../jobs/webhook-worker'
import { webhookSettings } from '../jobs/webhook-settings'
import { auditLog } from '../audit/log'
import { recordWebhookDelivery } from '../audit/webhooks'
import { startDirectoryRepair, stopDirectoryRepair } from '../directory/repair'
import { subscriptionPass, subscriptionsJob } from '../subscriptions/renewals'
import { seedPackages } from '../subscriptions/packages'
import { inventoryRecoveryJob } from '../inventory/recovery'
import { noShowJob, noShowPass } from '../appointments/no-show'
import { recoveryJob, recoveryPassWaiting } from '../jobs/recovery-loop'
import { withLeaseWaiting } from '../cluster/lease'
import { SYNC_MS } from '../sandbox/clock'
import { sandboxClockOf } from '../services/sandbox-clock/sandbox-clock'
import { checkInRecoveryJob, checkInRecoveryPass } from '../queues/check-in'
import { billingRecoveryJob, paymentIntentsRecoveryJob } from '../billing/recovery'
import { lifecycleOf } from './lifecycle'
import { NotificationWorker } from '../notifications/worker'
import { createRateGate } from '../notifications/rate'
import { createMessenger } from '../providers/messaging'
import { redisKey, redisOf } from '../cluster/redis'
import { logger } from '../logger'
import { metricsOf } from './metrics'
import { REMINDERS_JOB, notificationPass, reminderJob } from '../notifications/jobs'
import { ATTACHMENTS_JOB, attachmentsJob, attachmentsPass } from '../attachments/recovery'
import { fhirSlot } from '../services/fhir/fhir'
import { undoInterruptedImports } from '../fhir/journal'
import { startPatientLinksBackfill, stopPatientLinksBackfill } from '../services/patients/patients'

export type { Job }

/**
 * A webhook worker of this app (src/jobs/webhook-worker.ts), with its settings, the audit of deliveries of patient
 * data (src/audit/webhooks.ts) and the metrics of attempts. Not started.
 */
export const createWebhookWorker = (app: Application) => {
  const deps = depsSlot.require(app)
  return new WebhookWorker(deps, {
    settings: webhookSettings(deps.settings),
    auditDelivery: async (delivery, webhook) => {
      const log = auditLog(app)
      return log ? recordWebhookDelivery(app, log, delivery, webhook) : false
    },
    countOutcome: (outcome) => metricsOf(app)?.webhookDeliveries.inc({ outcome })
  })
}

const workerSlot = appSlot<WebhookWorker>('webhook worker')

// Webhook deliveries: claims due deliveries and retries them. During a graceful shutdown, attempts in flight get
// what is left of the grace period (less a second for the store).
const webhookWorkerJob = (app: Application): Job => ({
  name: 'webhook worker',
  start: async () => {
    const worker = workerSlot.set(app, createWebhookWorker(app))
    await worker.start()
  },
  stop: async () => {
    const worker = workerSlot.get(app)
    const state = lifecycleOf(app)
    const left = state && Number.isFinite(state.deadline) ? Math.max(0, state.remaining() - 1000) : undefined
    if (worker) await worker.stop(left)
  }
})

const notificationWorkerSlot = appSlot<NotificationWorker>('notification worker')

/** The notification delivery worker of this app (src/notifications/worker.ts), once started. */
export const notificationWorkerOf = (app: Application) => notificationWorkerSlot.get(app)

// Notification delivery: claims due notifications and sends them through the messaging provider (the same SMTP and
// SMS settings as action codes), at the facility's rate (counted in Redis with REDIS_URL). During a graceful
// shutdown, sends in flight get what is left of the grace period (less a second for the store).
const notificationWorkerJob = (app: Application): Job => ({
  name: 'notification worker',
  start: async () => {
    const deps = depsSlot.require(app)
    const messaging = deps.settings.get('messaging')
    const client = redisOf(app)
    const worker = notificationWorkerSlot.set(
      app,
      new NotificationWorker(deps, {
        messenger: createMessenger(messaging, (line) => logger.warn(line)),
        rate: createRateGate(
          client ? { client, keyPrefix: redisKey(app, 'notifications:rate') } : undefined,
          logger
        ),
        shared: !!deps.settings.get('mongodb')
      })
    )
    await worker.start()
  },
  stop: async () => {
    const worker = notificationWorkerSlot.get(app)
    const state = lifecycleOf(app)
    const left = state && Number.isFinite(state.deadline) ? Math.max(0, state.remaining() - 1000) : undefined
    if (worker) await worker.stop(left)
  }
})

// The sandbox clock (SANDBOX_CLOCK=true): adopts the stored offset before the other jobs read the clock, then every
// few seconds (another instance's move is also announced at once through Redis).
const sandboxClockJob = (app: Application): Job => {
  let timer: NodeJS.Timeout | undefined
  return {
    name: 'sandbox clock',
    start: async () => {
      const service = sandboxClockOf(app)
      if (!service) return
      await service.sync()
      timer = setInterval(() => {
        service.sync().catch((error: Error) => logger.warn('Sandbox clock not synced:', error.message))
      }, SYNC_MS)
      timer.unref()
    },
    stop: async () => {
      if (timer) clearInterval(timer)
    }
  }
}

/**
 * The time-driven passes the sandbox clock runs after moving time (each under its job's lease, so never at the
 * same time as that job's own pass on any instance): subscription renewals and expiries, no-shows, missing queue items of check-ins, appointment reminders, audit retention, expired FHIR exports (idempotent: no lease).
 */
const registerTimeDrivenPasses = (app: Application) => {
  const deps = depsSlot.require(app)
  deps.passes.register({
    job: 'subscriptions',
    run: async () => (await recoveryPassWaiting(app, 'subscriptions', () => subscriptionPass(deps))).changed
  })
  deps.passes.register({
    job: 'no-shows',
    run: () => recoveryPassWaiting(app, 'appointments', () => noShowPass(deps))
  })
  deps.passes.register({
    job: 'queue-check-ins',
    run: () => recoveryPassWaiting(app, 'queue-check-ins', () => checkInRecoveryPass(deps))
  })
  // Appointment reminders due by now, and appointment messages a crash cut off (src/notifications/jobs.ts).
  deps.passes.register({
    job: 'reminders',
    run: () => recoveryPassWaiting(app, REMINDERS_JOB, () => notificationPass(deps))
  })
  // Uploads that never came, removed once their URL expired (src/attachments/recovery.ts).
  deps.passes.register({
    job: 'attachment-uploads',
    run: async () => (await recoveryPassWaiting(app, ATTACHMENTS_JOB, () => attachmentsPass(deps))).expired
  })
  deps.passes.register({
    job: 'audit-retention',
    run: async () => {
      const log = auditLog(app)
      return log ? withLeaseWaiting(app, 'audit-retention', 30_000, () => log.applyRetention()) : 0
    }
  })
  // FHIR bulk exports past FHIR_EXPORT_TTL_MS: their files deleted (src/fhir/export.ts).
  deps.passes.register({
    job: 'fhir-export-expiry',
    run: async () => (await fhirSlot.get(app)?.worker.expire()) ?? 0
  })
}

const jobsOf = (app: Application): Job[] => [
  sandboxClockJob(app),
  webhookWorkerJob(app),
  notificationWorkerJob(app),
  // The audit trail's retention pass and anchors (src/audit/log.ts).
  { name: 'audit log', start: async () => auditLog(app)?.start(), stop: async () => auditLog(app)?.stop() },
  // The directory's search index is loaded in the background and a crash's leftovers repaired (src/directory/repair.ts).
  {
    name: 'directory repair',
    start: async () => void setImmediate(() => void startDirectoryRepair(app)),
    stop: () => stopDirectoryRepair(app)
  },
  // Trial ends, renewals, retries and expiry of incomplete subscriptions (src/subscriptions/renewals.ts).
  subscriptionsJob(app, depsSlot.require(app)),
  // The configured subscription packages that do not exist yet (src/subscriptions/packages.ts).
  {
    name: 'subscription packages',
    start: () => seedPackages(app, depsSlot.require(app)),
    stop: async () => undefined
  },
  // Scheduled appointments long past their end become no-shows (src/appointments/no-show.ts).
  noShowJob(app, depsSlot.require(app)),
  // Checked-in appointments of the day that have no queue item get one (src/queues/check-in.ts).
  checkInRecoveryJob(app, depsSlot.require(app)),
  // Crash recovery of each domain (src/jobs/recovery-loop.ts).
  inventoryRecoveryJob(app, depsSlot.require(app)),
  billingRecoveryJob(app, depsSlot.require(app)),
  paymentIntentsRecoveryJob(app, depsSlot.require(app)),
  // Appointment reminders at the facility's offsets before start (src/notifications/jobs.ts).
  reminderJob(app, depsSlot.require(app)),
  // Expired uploads and record removals a crash cut off (src/attachments/recovery.ts).
  attachmentsJob(app, depsSlot.require(app)),
  // FHIR: imports a crash interrupted are undone (src/fhir/journal.ts); bulk exports run and expire (src/fhir/export.ts).
  recoveryJob(app, 'fhir-imports', {
    intervalMs: () => FHIR_IMPORT_RECOVERY_MS,
    pass: async (when) => {
      const state = fhirSlot.get(app)
      if (!state) return null
      const deps = depsSlot.require(app)
      // At start-up on the embedded engine every unfinished import is interrupted; otherwise the stale ones.
      const cutoff =
        when === 'startup' && !app.get('mongodb')
          ? Number.POSITIVE_INFINITY
          : deps.clock.now() - app.get('fhir').importStaleAfterMs
      const undone = await undoInterruptedImports(deps, state.imports, cutoff)
      return undone ? `${undone} interrupted imports undone` : null
    }
  }),
  // Patient links of records written before links existed, once, in the background (src/patients/backfill.ts).
  {
    name: 'patient links backfill',
    start: async () => startPatientLinksBackfill(app, depsSlot.require(app)),
    stop: () => stopPatientLinksBackfill(app)
  },
  {
    name: 'fhir export worker',
    start: async () => fhirSlot.get(app)?.worker.start(),
    stop: async () => fhirSlot.get(app)?.worker.stop()
  }
]

// How often interrupted imports are looked for after start-up.
const FHIR_IMPORT_RECOVERY_MS = 60_000

const startedSlot = appSlot<Job[]>('started jobs')

/** Starts every job, in the order of the list. */
export const startJobs = async (app: Application) => {
  registerTimeDrivenPasses(app)
  const jobs = startedSlot.set(app, jobsOf(app))
  for (const job of jobs) await job.start()
}

/** Stops the jobs that were started, last first. */
export const stopJobs = async (app: Application) => {
  for (const job of [...(startedSlot.get(app) ?? [])].reverse()) await job.stop()
  startedSlot.set(app, [])
}
