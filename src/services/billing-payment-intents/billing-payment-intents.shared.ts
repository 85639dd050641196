// Path and methods of the payment intents service, shared with the typed client (intents are never removed).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Intent,
  intentDataSchema,
  intentPatchSchema,
  intentFindQuerySchema
} from './billing-payment-intents.schema'

export const billingPaymentIntentPath = 'billing-payment-intents'
export const billingPaymentIntentMethods = ['find', 'get', 'create', 'patch'] as const

export type { Intent }
export type BillingPaymentIntentData = Static<typeof intentDataSchema>
export type BillingPaymentIntentPatch = Static<typeof intentPatchSchema>
export type BillingPaymentIntentQuery = Static<typeof intentFindQuerySchema>

/** What a client may call on billing-payment-intents: its methods, typed by the schemas (data in, result out). */
export type BillingPaymentIntentClientService = Pick<
  ClientService<
    Intent,
    BillingPaymentIntentData,
    BillingPaymentIntentPatch,
    Paginated<Intent>,
    ClientParams<BillingPaymentIntentQuery>
  >,
  (typeof billingPaymentIntentMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [billingPaymentIntentPath]: BillingPaymentIntentClientService
  }
}
