// The billing-payments store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { Payment } from './billing-payments.schema'
import type { BillingPaymentData, BillingPaymentPatch, BillingPaymentQuery } from './billing-payments.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'billing-payments',
  indexes: [
    { fields: { item: 1 } },
    { fields: { invoice: 1 } },
    { fields: { facility: 1 } },
    // Recovery looks up payments whose recording never finished.
    { fields: { status: 1 } },
    // …and voids whose release did not finish.
    { fields: { voidPending: 1 }, sparse: true }
  ]
})

/** The billing-payments service as the app holds it: the store's adapter typed by the schemas. */
export type BillingPaymentService = StoreService<Stored<Payment>, BillingPaymentData, BillingPaymentPatch, BillingPaymentQuery>

export const createPaymentService = (app: Application): BillingPaymentService => createStore<Stored<Payment>, BillingPaymentData, BillingPaymentPatch, BillingPaymentQuery>(app, getOptions(app))
