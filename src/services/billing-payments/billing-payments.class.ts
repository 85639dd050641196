// The billing-payments store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Payment } from './billing-payments.schema'

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

export const createPaymentService = (app: Application) => createStore<Payment>(app, getOptions(app))
