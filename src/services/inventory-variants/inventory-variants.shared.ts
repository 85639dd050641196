// Path and methods of the inventory-variants service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type { Stock } from '../inventory-stocks/inventory-stocks.schema'
import type {
  Variant,
  variantDataSchema,
  variantPatchSchema,
  variantQuerySchema
} from './inventory-variants.schema'

export const inventoryVariantPath = 'inventory-variants'
export const inventoryVariantMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

export type { Variant }
/** A variant as read: with `$stocks` when `$populateStocks` asked for them. */
export type InventoryVariantResult = Variant & { $stocks?: Stock[] }
export type InventoryVariantData = Static<typeof variantDataSchema>
export type InventoryVariantPatch = Static<typeof variantPatchSchema>
/** `$populateStocks=true` (or `{ stockroom: id }`) adds each variant's stocks (taken off the query by the service's hook). */
export type InventoryVariantQuery = Static<typeof variantQuerySchema> & {
  $populateStocks?: true | { stockroom: string }
}

/** What a client may call on inventory-variants: its methods, typed by the schemas (data in, result out). */
export type InventoryVariantClientService = Pick<
  ClientService<
    InventoryVariantResult,
    InventoryVariantData,
    InventoryVariantPatch,
    Paginated<InventoryVariantResult>,
    ClientParams<InventoryVariantQuery>
  >,
  (typeof inventoryVariantMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [inventoryVariantPath]: InventoryVariantClientService
  }
}
