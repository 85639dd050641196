// Path and methods of the billing customers service, shared with the typed client (customers are not removed).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Customer,
  customerDataSchema,
  customerPatchSchema,
  customerGetQuerySchema
} from './billing-customers.schema'

export const billingCustomerPath = 'billing/customers'
export const billingCustomerMethods = ['find', 'get', 'create', 'patch'] as const

export type { Customer }
export type BillingCustomerData = Static<typeof customerDataSchema>
export type BillingCustomerPatch = Static<typeof customerPatchSchema>
export type BillingCustomerQuery = Static<typeof customerGetQuerySchema>

/** What a client may call on billing-customers: its methods, typed by the schemas (data in, result out). */
export type BillingCustomerClientService = Pick<
  ClientService<
    Customer,
    BillingCustomerData,
    BillingCustomerPatch,
    Paginated<Customer>,
    ClientParams<BillingCustomerQuery>
  >,
  (typeof billingCustomerMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [billingCustomerPath]: BillingCustomerClientService
  }
}
