// The webhooks store and its options. Besides the public fields it keeps `topics` (the parsed event
// patterns, matched with $in on every service event), and the worker's schedule: `dueAt` (when the worker
// should next look at this webhook's queue) and `queueVersion` (bumped by every enqueue, so a worker never
// overwrites a wake-up it did not see).
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Webhook } from './webhooks.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'webhooks',
  indexes: [{ fields: { organization: 1 }, sparse: true }, { fields: { account: 1 }, sparse: true }, { fields: { topics: 1 } }, { fields: { dueAt: 1 } }],
  operators: ['$exists']
})

export const createWebhookService = (app: Application) => createStore<Webhook>(app, getOptions(app))
