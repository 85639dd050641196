// The webhook delivery queue: durable delivery documents (the `webhook-events` store) written while the
// request that caused them is still running, and the wake-up of the webhook's schedule so a worker (in
// this process at once, in other instances at their next poll) picks them up.
import { NotFound } from '@feathersjs/errors'
import type { Application } from '../declarations'
import type { StoreService } from '../store'
import { accessRules, canRead, organizationsOf } from '../access/rules'
import { loadAccessContext, type AccessContext } from '../access/context'
import { topicsMatching } from '../services/webhooks/webhook-patterns'
import { logger } from '../logger'
import { webhookWorkerOf } from './webhook-worker'

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

/** A delivery as stored: the public fields plus the payload as JSON text and the worker's lease. */
export interface StoredDelivery {
  id: string
  webhook: string
  organization?: string
  account?: string
  event: string
  /** The payload exactly as sent (JSON text, so any document shape can be stored on both engines). */
  payloadJson?: string
  status: DeliveryStatus
  /** The webhook id while pending (absent once delivered or failed): the worker's window index. */
  queue?: string
  attempts: number
  nextAttemptAt: number
  /** 0 when free; else the time until which one worker owns the attempt in flight. */
  leaseUntil: number
  leaseOwner?: string
  lastAttemptAt?: number
  lastResponse?: { status?: number; error?: string; durationMs: number; at: number }
  deliveredAt?: number
  failedAt?: number
  retries?: number
  retriedAt?: number
  createdAt: number
  /** When its delivery to the receiver was recorded in the audit trail (deliveries of patient data only). */
  auditedAt?: number
}

export const webhookStore = (app: Application) => app.service('webhooks')
export const deliveryStore = (app: Application): StoreService => app.service('webhook-events').deliveries

const ignoreNotFound = (error: unknown) => {
  if (!(error instanceof NotFound)) throw error
  return null
}

/** The request body of a delivery, identical for every attempt: `{ id, event, payload }`. */
export const deliveryBody = (delivery: Pick<StoredDelivery, 'id' | 'event' | 'payloadJson'>) =>
  `{"id":${JSON.stringify(delivery.id)},"event":${JSON.stringify(delivery.event)}${
    delivery.payloadJson !== undefined ? `,"payload":${delivery.payloadJson}` : ''
  }}`

const owner = (webhook: any) =>
  webhook.organization ? { organization: webhook.organization } : { account: webhook.account }

/** Tells the webhook's schedule (and this process's worker) that its queue changed. */
export const wakeWebhook = async (app: Application, webhookId: string, at = Date.now()) => {
  await webhookStore(app)
    ._patch(webhookId, { $min: { dueAt: at }, $inc: { queueVersion: 1 } })
    .catch(ignoreNotFound)
  webhookWorkerOf(app)?.nudge(webhookId)
}

/** Writes deliveries of `event` with each payload to one webhook, in order, then wakes its schedule. */
export const enqueueDeliveries = async (
  app: Application,
  webhook: any,
  event: string,
  payloads: unknown[]
): Promise<StoredDelivery[]> => {
  const store = deliveryStore(app)
  const created: StoredDelivery[] = []
  for (const payload of payloads) {
    const now = Date.now()
    const doc: Omit<StoredDelivery, 'id'> = {
      webhook: webhook.id,
      ...owner(webhook),
      event,
      ...(payload === undefined ? {} : { payloadJson: JSON.stringify(payload) }),
      status: 'pending',
      queue: webhook.id,
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: 0,
      createdAt: now
    }
    created.push(await store._create(doc))
  }
  if (created.length) await wakeWebhook(app, webhook.id, created[0].createdAt)
  return created
}

/**
 * Records a successful `method` call of service `path` whose results are `docs`: one delivery per document
 * for every active webhook subscribed to it whose owner may see the document — an organization's webhook
 * the documents that belong to that organization (`organizations` in the access rules), an account's webhook
 * the documents that account could read through the API (`canRead`).
 */
export const recordServiceEvent = async (app: Application, path: string, method: string, docs: any[]) => {
  if (!accessRules(app, path) || docs.length === 0) return
  const organizations = [...new Set(docs.flatMap((doc) => organizationsOf(app, path, doc)))]
  const candidates: any[] = await webhookStore(app)._find({
    query: {
      active: true,
      topics: { $in: topicsMatching(path, method) },
      $or: [
        ...(organizations.length ? [{ organization: { $in: organizations } }] : []),
        { account: { $exists: true } }
      ]
    },
    paginate: false
  })
  if (candidates.length === 0) return

  const accessByAccount = new Map<string, Promise<AccessContext | null>>()
  const accessOfAccount = (id: string) => {
    if (!accessByAccount.has(id)) {
      accessByAccount.set(
        id,
        app
          .service('accounts')
          ._get(id)
          .then((account: any) => loadAccessContext(app, account))
          .catch(() => null)
      )
    }
    return accessByAccount.get(id) as Promise<AccessContext | null>
  }

  const event = `${path}.${method}`
  await Promise.all(
    candidates.map(async (webhook) => {
      const visible: any[] = []
      for (const doc of docs) {
        if (webhook.organization) {
          if (organizationsOf(app, path, doc).includes(webhook.organization)) visible.push(doc)
        } else if (webhook.account) {
          const access = await accessOfAccount(webhook.account)
          if (access && canRead(app, path, access, doc)) visible.push(doc)
        }
      }
      if (visible.length) await enqueueDeliveries(app, webhook, event, visible)
    })
  ).catch((error) => {
    logger.error(`Recording webhook deliveries of ${event} failed:`, error)
    throw error
  })
}
