// Path and methods of the billing-payments service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Payment as PaymentDoc,
  paymentInternals,
  paymentDataSchema,
  paymentPatchSchema,
  paymentQuerySchema
} from './billing-payments.schema'
import type { External } from '../../schema/resolvers'

export const billingPaymentPath = 'billing-payments'
export const billingPaymentMethods = ['find', 'get', 'create', 'patch'] as const

/** A payment as clients receive it: none of the fields its external resolver keeps on the server. */
export type Payment = External<PaymentDoc, typeof paymentInternals>
export type BillingPaymentData = Static<typeof paymentDataSchema>
export type BillingPaymentPatch = Static<typeof paymentPatchSchema>
export type BillingPaymentQuery = Static<typeof paymentQuerySchema>

/** What a client may call on billing-payments: its methods, typed by the schemas (data in, result out). */
export type BillingPaymentClientService = Pick<
  ClientService<
    Payment,
    BillingPaymentData,
    BillingPaymentPatch,
    Paginated<Payment>,
    ClientParams<BillingPaymentQuery>
  >,
  (typeof billingPaymentMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [billingPaymentPath]: BillingPaymentClientService
  }
}
