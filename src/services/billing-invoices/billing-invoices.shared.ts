// Path and methods of the billing-invoices service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Invoice as InvoiceDoc,
  invoiceInternals,
  invoiceDataSchema,
  invoicePatchSchema,
  invoiceQuerySchema
} from './billing-invoices.schema'
import type { External } from '../../schema/resolvers'

export const billingInvoicePath = 'billing-invoices'
export const billingInvoiceMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

/** An invoice as clients receive it: none of the fields its external resolver keeps on the server. */
export type Invoice = External<InvoiceDoc, typeof invoiceInternals>
export type BillingInvoiceData = Static<typeof invoiceDataSchema>
export type BillingInvoicePatch = Static<typeof invoicePatchSchema>
export type BillingInvoiceQuery = Static<typeof invoiceQuerySchema>

/** What a client may call on billing-invoices: its methods, typed by the schemas (data in, result out). */
export type BillingInvoiceClientService = Pick<
  ClientService<
    Invoice,
    BillingInvoiceData,
    BillingInvoicePatch,
    Paginated<Invoice>,
    ClientParams<BillingInvoiceQuery>
  >,
  (typeof billingInvoiceMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [billingInvoicePath]: BillingInvoiceClientService
  }
}
