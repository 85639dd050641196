// The billing-items store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Item } from './billing-items.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'billing-items',
  indexes: [
    { fields: { invoice: 1 } },
    { fields: { facility: 1 } },
    // Recovery: unfinished cascades, stale reservations, and the sweep over recent changes.
    { fields: { deletingAt: 1 }, sparse: true },
    { fields: { 'pending.at': 1 }, sparse: true },
    { fields: { updatedAt: 1 } }
  ],
  // Voiding a payment releases its amount once: conditional on `voided.<payment id>` not existing yet.
  operators: ['$exists']
})

export const createItemService = (app: Application) => createStore<Item>(app, getOptions(app))
