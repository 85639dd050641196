// /webhook-events serves two things, as the interface wants: POST with a webhook's fields creates the
// webhook (handed to the `webhooks` service, which checks and stores it), POST { webhook, event: "ping" }
// queues a ping; the documents read here are deliveries (webhook events), kept in their own store that
// the worker (src/jobs/webhook-worker.ts) claims from.
import { Conflict } from '@feathersjs/errors'
import type { Id, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { createStore, type StoreOptions, type StoreService } from '../../store'
import { within } from '../../access/rules'
import { check, dataValidator } from '../../schema/validators'
import { enqueueDeliveries, wakeWebhook } from '../../jobs/webhook-queue'
import { pingSchema, type StoredDelivery } from './webhook-events.schema'
import type { WebhookEventData } from './webhook-events.shared'
import type { WebhookData } from '../webhooks/webhooks.shared'
import type { CreatedFields } from '../../hooks/set-created'
import { getDispatchValue } from '@feathersjs/schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'webhook-events',
  // The worker's window reads `queue` (the webhook id, set only while a delivery is pending) in creation order, so
  // its cost follows the webhook's backlog, not its history; listings read `webhook`; cleanup reads `createdAt`.
  indexes: [
    { fields: { queue: 1, createdAt: 1 }, sparse: true },
    { fields: { webhook: 1, createdAt: 1 } },
    { fields: { createdAt: 1 } }
  ]
})

/** A body with `webhook` or `event` asks for a ping; anything else registers a webhook. */
export const isPingBody = (data: unknown) =>
  !!data && typeof data === 'object' && !Array.isArray(data) && ('webhook' in data || 'event' in data)

/** A stored delivery as clients see it: the payload parsed, the worker's lease left out. */
export class WebhookEventsService {
  readonly deliveries: StoreService<StoredDelivery>

  constructor(
    private readonly app: Application,
    private readonly deps: Deps
  ) {
    this.deliveries = createStore<StoredDelivery>(app, getOptions(app))
  }

  /** Deliveries, newest first unless `$sort` says otherwise (scoped to the caller's webhooks by the hooks). */
  async find(params: Params = {}) {
    const query = { ...(params.query ?? {}) }
    if (!query.$sort) query.$sort = { createdAt: -1, id: -1 }
    return this.deliveries.find({ ...params, query })
  }

  async get(id: Id, params: Params = {}) {
    return this.deliveries._get(id, params)
  }

  async create(data: WebhookEventData, params: Params = {}) {
    if (!isPingBody(data)) {
      // The registration's response: the webhook as clients see it, and its signing secret, shown this once.
      // (cast: the body is checked, and its creation fields set, by the webhooks service's own hooks)
      const body = data as WebhookData & CreatedFields
      const created = await this.app.service('webhooks').create(body, params)
      return { ...getDispatchValue(created), secret: created.secret }
    }
    const ping = check<{ webhook: string; event: 'ping' }>(dataValidator, pingSchema, data, 'ping')
    const webhooks = this.app.service('webhooks')
    // As the caller: someone else's webhook is a 404.
    const webhook = params.provider
      ? await webhooks.get(ping.webhook, {
          provider: params.provider,
          account: params.account,
          authenticated: true,
          access: params.access,
          authentication: params.authentication
        })
      : await webhooks._get(ping.webhook)
    if (webhook.active === false) {
      throw new Conflict(
        'The webhook is inactive; reactivate it (PATCH /webhooks/:id { active: true }) before pinging it',
        { webhook: webhook.id }
      )
    }
    const [delivery] = await enqueueDeliveries(this.deps, webhook, 'ping', [{ webhook: webhook.id }])
    return delivery
  }

  /** `{ retry: true }` on a failed delivery queues it again with a fresh retry schedule. */
  async patch(id: Id, _data: { retry: true }, params: Params = {}) {
    // (cast: scopeAccess loads `existing` from this service's deliveries)
    const existing = (params.existing as StoredDelivery | undefined) ?? (await this.deliveries._get(id))
    if (existing.status !== 'failed') {
      throw new Conflict(`Only a failed delivery can be retried; this one is ${existing.status}`, {
        status: existing.status
      })
    }
    const now = this.deps.clock.now()
    const updated = await this.deliveries
      ._patch(
        existing.id,
        {
          status: 'pending',
          queue: existing.webhook,
          attempts: 0,
          nextAttemptAt: now,
          leaseUntil: 0,
          retriedAt: now,
          $inc: { retries: 1 },
          $unset: { failedAt: '' }
        },
        { query: within({ status: 'failed' }, params.writeScope) }
      )
      .catch(() => {
        throw new Conflict('The delivery was retried meanwhile')
      })
    await wakeWebhook(this.deps, existing.webhook, now)
    return updated
  }

  // For scopeAccess (reads the existing document without hooks).
  async _get(id: Id, params: Params = {}) {
    return this.deliveries._get(id, params)
  }
}
