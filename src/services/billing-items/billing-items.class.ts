// The billing-items store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { Item } from './billing-items.schema'
import type { BillingItemData, BillingItemPatch, BillingItemQuery } from './billing-items.shared'

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

/** The billing-items service as the app holds it: the store's adapter typed by the schemas. */
export type BillingItemService = StoreService<Stored<Item>, BillingItemData, BillingItemPatch, BillingItemQuery>

export const createItemService = (app: Application): BillingItemService => createStore<Stored<Item>, BillingItemData, BillingItemPatch, BillingItemQuery>(app, getOptions(app))
