// Every start-up and shut-down job, started from here and nowhere else: once the store, Redis and the admin
// account are ready (src/app.ts), the jobs start in the order listed; on shut-down, after requests drained
// (src/ops/lifecycle.ts), they stop in the reverse order, before the store closes. A new job goes in this list.
import type { Application } from '../declarations'
import { appSlot } from '../runtime'
import { depsSlot } from '../deps'
import { startWebhookWorker, stopWebhookWorker } from '../jobs/webhook-worker'
import { auditLog } from '../audit/log'
import { startDirectoryRepair, stopDirectoryRepair } from '../directory/repair'
import { subscriptionsJob } from '../subscriptions/renewals'
import { seedPackages } from '../subscriptions/packages'
import { inventoryRecoveryJob } from '../inventory/recovery'
import { billingRecoveryJob, paymentIntentsRecoveryJob } from '../billing/recovery'

export interface Job {
  name: string
  start(): Promise<void>
  stop(): Promise<void>
}

const jobsOf = (app: Application): Job[] => [
  // Webhook deliveries: claims due deliveries and retries them (src/jobs/webhook-worker.ts).
  {
    name: 'webhook worker',
    start: async () => void (await startWebhookWorker(app)),
    stop: () => stopWebhookWorker(app)
  },
  // The audit trail's retention pass (src/audit/log.ts).
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
  // Crash recovery of each domain (src/jobs/recovery-loop.ts).
  inventoryRecoveryJob(app),
  billingRecoveryJob(app),
  paymentIntentsRecoveryJob(app)
]

const startedSlot = appSlot<Job[]>('started jobs')

/** Starts every job, in the order of the list. */
export const startJobs = async (app: Application) => {
  const jobs = startedSlot.set(app, jobsOf(app))
  for (const job of jobs) await job.start()
}

/** Stops the jobs that were started, last first. */
export const stopJobs = async (app: Application) => {
  for (const job of [...(startedSlot.get(app) ?? [])].reverse()) await job.stop()
  startedSlot.set(app, [])
}
