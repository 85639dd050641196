// The webhooks store and its options. Besides the public fields it keeps `topics` (the parsed event
// patterns, matched with $in on every service event), and the worker's schedule: `dueAt` (when the worker
// should next look at this webhook's queue) and `queueVersion` (bumped by every enqueue, so a worker never
// overwrites a wake-up it did not see).
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { Webhook } from './webhooks.schema'
import type { WebhookData, WebhookPatch, WebhookQuery } from './webhooks.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'webhooks',
  indexes: [{ fields: { organization: 1 }, sparse: true }, { fields: { account: 1 }, sparse: true }, { fields: { topics: 1 } }, { fields: { dueAt: 1 } }],
  operators: ['$exists']
})

/** The webhooks service as the app holds it: the store's adapter typed by the schemas. */
export type WebhookService = StoreService<Stored<Webhook>, WebhookData, WebhookPatch, WebhookQuery>

export const createWebhookService = (app: Application): WebhookService => createStore<Stored<Webhook>, WebhookData, WebhookPatch, WebhookQuery>(app, getOptions(app))
