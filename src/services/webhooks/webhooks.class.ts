// The webhooks store and its options. Besides the public fields it keeps `topics` (the parsed event
// patterns, matched with $in on every service event), and the worker's schedule: `dueAt` (when the worker
// should next look at this webhook's queue) and `queueVersion` (bumped by every enqueue, so a worker never
// overwrites a wake-up it did not see).
// The class holds what a POST (through /webhook-events), PATCH and DELETE do.
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { ResourceService } from '../resource'
import type { StoreDoc, StoreOptions, StoreParams, Stored } from '../../store'
import type { CreatedFields } from '../../hooks/set-created'
import { invalid, type FieldError } from '../../schema/validators'
import { generateWebhookSecret } from '../../providers/webhook-http'
import { webhookSettings } from '../../jobs/webhook-settings'
import { wakeWebhook } from '../../jobs/webhook-queue'
import { parseEventPatterns } from './webhook-patterns'
import { ANCHOR_EVENT } from '../../jobs/webhook-topics'
import { Forbidden } from '@feathersjs/errors'
import { checkWebhookUrl } from './webhook-url'
import type { Webhook } from './webhooks.schema'
import { webhookPath, type WebhookData, type WebhookPatch, type WebhookQuery } from './webhooks.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'webhooks',
  indexes: [
    { fields: { organization: 1 }, sparse: true },
    { fields: { account: 1 }, sparse: true },
    { fields: { topics: 1 } },
    { fields: { dueAt: 1 } }
  ],
  operators: ['$exists']
})

type WebhookParams = StoreParams<WebhookQuery>

/**
 * `audit.anchor` (the audit chain's head, src/audit/anchors.ts) goes to application admins only: on a webhook of the
 * admin's own account, registered or changed by that admin (internal calls are trusted).
 */
const checkAnchorSubscription = (
  topics: string[],
  owner: { organization?: string; account?: string },
  params: WebhookParams = {}
) => {
  if (!topics.includes(ANCHOR_EVENT) || !params.provider) return
  const caller = (params as { account?: { id?: string; admin?: boolean } }).account
  if (caller?.admin !== true || owner.organization || owner.account !== caller.id) {
    throw new Forbidden(
      `Only application admins may subscribe to '${ANCHOR_EVENT}', on a webhook of their own account`,
      { errors: [{ field: 'events', message: `'${ANCHOR_EVENT}' is for application admins' own webhooks` }] }
    )
  }
}

export class WebhookService extends ResourceService<
  Stored<Webhook>,
  WebhookData,
  WebhookPatch,
  WebhookQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, webhookPath, getOptions(app))
  }

  /** Checks owner, URL and event patterns (one 400 naming every problem), then stores the webhook with its secret and schedule. */
  async create(data: WebhookData & CreatedFields, params?: WebhookParams): Promise<Stored<Webhook>> {
    const { organization, account, url, events, active, createdAt, createdBy } = data
    const settings = webhookSettings(this.deps.settings)
    const errors: FieldError[] = []
    if (!organization === !account) {
      const message = organization
        ? 'cannot be given together with the other (a webhook belongs to an organization or an account)'
        : 'one of organization or account is required'
      errors.push({ field: 'organization', message }, { field: 'account', message })
    }
    errors.push(...(await checkWebhookUrl(url, settings.allowPrivate)))
    const parsed = parseEventPatterns(this.app, events)
    errors.push(...parsed.errors)
    if (errors.length) throw invalid('webhook', errors)
    checkAnchorSubscription(parsed.topics, { organization, account }, params)
    const webhook = {
      ...(organization ? { organization } : { account }),
      url,
      events: parsed.events,
      topics: parsed.topics,
      active: active !== false,
      secret: generateWebhookSecret(),
      consecutiveFailures: 0,
      dueAt: this.deps.clock.now() + settings.idleMs,
      queueVersion: 0,
      createdAt,
      createdBy
    }
    return this.write('create', null, params, () => this.store._create(webhook, params))
  }

  /**
   * URL and events are checked as at creation; reactivation clears the failure streak and wakes the queue (deliveries
   * paused while inactive go out in order); deactivation by the owner is recorded with a reason.
   */
  async patch(id: NullableId, data: WebhookPatch, params: WebhookParams = {}): Promise<Stored<Webhook>> {
    const existing = await this.loadExisting(id as Id, params)
    const settings = webhookSettings(this.deps.settings)
    const { url, events, active } = data
    const now = this.deps.clock.now()
    const errors: FieldError[] = []
    const patch: StoreDoc = { updatedAt: now }
    if (url !== undefined) {
      errors.push(...(await checkWebhookUrl(url, settings.allowPrivate)))
      patch.url = url
    }
    if (events !== undefined) {
      const parsed = parseEventPatterns(this.app, events)
      errors.push(...parsed.errors)
      patch.events = parsed.events
      patch.topics = parsed.topics
    }
    if (errors.length) throw invalid('webhook', errors)
    if (patch.topics) checkAnchorSubscription(patch.topics, existing, params)
    const reactivating = active === true && existing.active === false
    if (reactivating) {
      Object.assign(patch, {
        active: true,
        consecutiveFailures: 0,
        dueAt: now,
        $unset: { failingSince: '', lastFailureAt: '', deactivatedAt: '', deactivatedReason: '' },
        $inc: { queueVersion: 1 }
      })
    } else if (active === false && existing.active !== false) {
      Object.assign(patch, {
        active: false,
        deactivatedAt: now,
        deactivatedReason: 'deactivated by its owner'
      })
    }
    return this.write('patch', id, params, async () => {
      const updated = await this.store.patch(id, patch, params)
      if (reactivating) await wakeWebhook(this.deps, existing.id, now)
      return updated
    })
  }

  /** Removes the webhook with its deliveries. */
  async remove(id: NullableId, params?: WebhookParams): Promise<Stored<Webhook>> {
    return this.write('remove', id, params, async () => {
      const removed = await this.store.remove(id, params)
      await this.deps.stores.deliveries._remove(null, {
        query: { webhook: removed.id },
        adapter: { multi: true }
      })
      return removed
    })
  }
}
