// The webhook delivery queue: durable delivery documents (the `webhook-events` store) written while the
// request that caused them is still running, and the wake-up of the webhook's schedule so a worker (in
// this process at once, through the `webhook.queued` event; in other instances at their next poll) picks them up.
// Service writes reach it through the `record.changed` event (src/jobs/webhook-recorder.ts).
import { NotFound } from '@feathersjs/errors'
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import { DerivedCache, type Stored } from '../store'
import { appSlot } from '../runtime'
import type { Webhook } from '../services/webhooks/webhooks.schema'
import type { StoredDelivery } from '../services/webhook-events/webhook-events.schema'
import { accessRules, canRead, organizationsOf } from '../access/rules'
import { loadAccessContext, type AccessContext } from '../access/context'
import { topicsMatching } from './webhook-topics'

declare module '../events' {
  interface EventMap {
    /** Deliveries were queued for a webhook (or its queue changed): this process's worker looks at it now. */
    'webhook.queued': { webhook: string }
  }
}

/** What the queue uses: the webhooks, deliveries and accounts stores, the clock, the bus, the logger. */
export type QueueDeps = Pick<Deps, 'stores' | 'clock' | 'events' | 'logger'>

export type { StoredDelivery }
export type DeliveryStatus = StoredDelivery['status']

/** A webhook as stored: the public fields plus its parsed topics and the worker's schedule. */
export type StoredWebhook = Stored<Webhook> & { topics?: string[]; dueAt?: number; queueVersion?: number }

const ignoreNotFound = (error: unknown) => {
  if (!(error instanceof NotFound)) throw error
  return null
}

/** The request body of a delivery, identical for every attempt: `{ id, event, payload }`. */
export const deliveryBody = (delivery: Pick<StoredDelivery, 'id' | 'event' | 'payloadJson'>) =>
  `{"id":${JSON.stringify(delivery.id)},"event":${JSON.stringify(delivery.event)}${
    delivery.payloadJson !== undefined ? `,"payload":${delivery.payloadJson}` : ''
  }}`

const owner = (webhook: Pick<Webhook, 'organization' | 'account'>) =>
  webhook.organization ? { organization: webhook.organization } : { account: webhook.account }

/** Tells the webhook's schedule (and this process's worker) that its queue changed. */
export const wakeWebhook = async (deps: QueueDeps, webhookId: string, at = deps.clock.now()) => {
  await deps.stores.webhooks
    ._patch(webhookId, { $min: { dueAt: at }, $inc: { queueVersion: 1 } })
    .catch(ignoreNotFound)
  await deps.events.emit('webhook.queued', { webhook: webhookId })
}

/** Writes deliveries of `event` with each payload to one webhook, in order, then wakes its schedule. */
export const enqueueDeliveries = async (
  deps: QueueDeps,
  webhook: Pick<Webhook, 'id' | 'organization' | 'account'>,
  event: string,
  payloads: unknown[]
): Promise<StoredDelivery[]> => {
  const created: StoredDelivery[] = []
  for (const payload of payloads) {
    const now = deps.clock.now()
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
    created.push(await deps.stores.deliveries._create(doc))
  }
  if (created.length) await wakeWebhook(deps, webhook.id, created[0].createdAt)
  return created
}

/**
 * Records a successful `method` write of service `path` whose results are `docs` (in their client view): one
 * delivery per document for every active webhook subscribed to it whose owner may see the document — an
 * organization's webhook the documents that belong to that organization (`organizations` in the access rules), an
 * account's webhook the documents that account could read through the API (`canRead`). `app` is the access rules'
 * registry.
 */
/**
 * The active webhooks subscribed to each event (`<path>.<method>`), kept while the webhooks are unchanged (the
 * embedded engine only: a webhook created, removed, deactivated or re-subscribed is seen by the very next write).
 * Held per app, on its stores.
 */
const listenersSlot = appSlot<DerivedCache<string, StoredWebhook[]>>('webhooks by event')

const listenersCache = (deps: QueueDeps) =>
  listenersSlot.ensure(deps.stores, () => new DerivedCache([deps.stores.webhooks]))

/** The active webhooks subscribed to `path`'s `method` event, whatever their owner (shared: never change them). */
const listenersOf = (deps: QueueDeps, path: string, method: string): Promise<StoredWebhook[]> =>
  listenersCache(deps).get(`${path}.${method}`, () =>
    deps.stores.webhooks._find({
      query: { active: true, topics: { $in: topicsMatching(path, method) } },
      paginate: false
    })
  )

/**
 * Whether no webhook can receive `path`'s `method` event, known without reading the store (the kept listeners of
 * the embedded engine): the caller then skips presenting the documents. False when it is not known (MongoDB).
 */
export const nobodyListens = async (deps: QueueDeps, path: string, method: string) =>
  listenersCache(deps).keeps() && (await listenersOf(deps, path, method)).length === 0

/** The active webhooks subscribed to the event that may receive documents of `organizations`. */
const candidatesOf = async (
  deps: QueueDeps,
  path: string,
  method: string,
  organizations: string[]
): Promise<StoredWebhook[]> => {
  if (listenersCache(deps).keeps()) {
    // The query below, applied to the kept listeners.
    return (await listenersOf(deps, path, method)).filter(
      (webhook) =>
        (webhook.organization !== undefined && organizations.includes(webhook.organization)) ||
        webhook.account !== undefined
    )
  }
  return deps.stores.webhooks._find({
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
}

export const recordServiceEvent = async (
  app: Application,
  deps: QueueDeps,
  path: string,
  method: string,
  docs: Record<string, unknown>[]
) => {
  if (!accessRules(app, path) || docs.length === 0) return
  const organizations = [...new Set(docs.flatMap((doc) => organizationsOf(app, path, doc)))]
  const candidates = await candidatesOf(deps, path, method, organizations)
  if (candidates.length === 0) return

  const accessByAccount = new Map<string, Promise<AccessContext | null>>()
  const accessOfAccount = (id: string) => {
    let access = accessByAccount.get(id)
    if (!access) {
      access = deps.stores.accounts
        ._get(id)
        .then((account) => loadAccessContext(app, account))
        .catch(() => null)
      accessByAccount.set(id, access)
    }
    return access
  }

  const event = `${path}.${method}`
  await Promise.all(
    candidates.map(async (webhook) => {
      const visible: Record<string, unknown>[] = []
      for (const doc of docs) {
        if (webhook.organization) {
          if (organizationsOf(app, path, doc).includes(webhook.organization)) visible.push(doc)
        } else if (webhook.account) {
          const access = await accessOfAccount(webhook.account)
          if (access && canRead(app, path, access, doc)) visible.push(doc)
        }
      }
      if (visible.length) await enqueueDeliveries(deps, webhook, event, visible)
    })
  ).catch((error) => {
    deps.logger.error(`Recording webhook deliveries of ${event} failed:`, error)
    throw error
  })
}
