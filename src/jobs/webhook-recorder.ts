// Webhooks see every change of every service, present and future, without per-service code: each write a service
// announces on the app's bus (`record.changed`: a ResourceService write, external or internal, or a change announced
// outside a call) becomes durable webhook deliveries of its documents — as clients see them, without secrets (the
// service's external resolver) — before the write is answered (the bus waits for its subscribers).
import type { Application } from '../declarations'
import type { RecordChange } from '../events'
import { presentExternal } from '../schema/external'
import { nobodyListens, recordServiceEvent, type QueueDeps } from './webhook-queue'
import { isEventMethod, WEBHOOK_SERVICE_PATHS } from './webhook-topics'

/** The deliveries of one announced write (nothing for the webhook services themselves). */
export const recordChangeDeliveries = async (app: Application, deps: QueueDeps, change: RecordChange) => {
  if (!isEventMethod(change.method) || WEBHOOK_SERVICE_PATHS.includes(change.path)) return
  if (change.docs.length === 0) return
  // (presenting a document costs its external resolver: only for a write some webhook may receive)
  if (await nobodyListens(deps, change.path, change.method)) return
  const docs = await Promise.all(change.docs.map((doc) => presentExternal(app, change.path, doc)))
  await recordServiceEvent(app, deps, change.path, change.method, docs)
}

/** Subscribes the app's webhook recording to its bus (once, where the webhook services register). */
export const recordWebhookDeliveries = (app: Application, deps: QueueDeps) =>
  deps.events.on('record.changed', (change) => recordChangeDeliveries(app, deps, change))
