// The billing-invoices store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Invoice } from './billing-invoices.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'billing-invoices',
  indexes: [
    { fields: { facility: 1 } },
    { fields: { subject: 1 } },
    { fields: { encounter: 1 } },
    // Recovery looks up unfinished cascades and finalizations.
    { fields: { deletingAt: 1 }, sparse: true },
    { fields: { 'finalizePending.at': 1 }, sparse: true }
  ]
})

export const createInvoiceService = (app: Application) => createStore<Invoice>(app, getOptions(app))
