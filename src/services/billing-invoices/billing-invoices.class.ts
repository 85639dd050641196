// The billing-invoices store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { Invoice } from './billing-invoices.schema'
import type { BillingInvoiceData, BillingInvoicePatch, BillingInvoiceQuery } from './billing-invoices.shared'

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

/** The billing-invoices service as the app holds it: the store's adapter typed by the schemas. */
export type BillingInvoiceService = StoreService<Stored<Invoice>, BillingInvoiceData, BillingInvoicePatch, BillingInvoiceQuery>

export const createInvoiceService = (app: Application): BillingInvoiceService => createStore<Stored<Invoice>, BillingInvoiceData, BillingInvoicePatch, BillingInvoiceQuery>(app, getOptions(app))
