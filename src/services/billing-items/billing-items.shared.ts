// Path and methods of the billing-items service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Item as ItemDoc,
  itemInternals,
  itemDataSchema,
  itemPatchSchema,
  itemQuerySchema
} from './billing-items.schema'
import type { External } from '../../schema/resolvers'

export const billingItemPath = 'billing-items'
export const billingItemMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

/** A billing item as clients receive it: none of the fields its external resolver keeps on the server. */
export type Item = External<ItemDoc, typeof itemInternals>
export type BillingItemData = Static<typeof itemDataSchema>
export type BillingItemPatch = Static<typeof itemPatchSchema>
export type BillingItemQuery = Static<typeof itemQuerySchema>

/** What a client may call on billing-items: its methods, typed by the schemas (data in, result out). */
export type BillingItemClientService = Pick<
  ClientService<Item, BillingItemData, BillingItemPatch, Paginated<Item>, ClientParams<BillingItemQuery>>,
  (typeof billingItemMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [billingItemPath]: BillingItemClientService
  }
}
