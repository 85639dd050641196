// Path and methods of the inventory-stocks service, shared with the typed client (stocks are moved, never removed).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Stock as StockDoc,
  stockInternals,
  stockDataSchema,
  stockPatchSchema,
  stockQuerySchema
} from './inventory-stocks.schema'
import type { External } from '../../schema/resolvers'

export const inventoryStockPath = 'inventory-stocks'
export const inventoryStockMethods = ['find', 'get', 'create', 'patch'] as const

/** A stock as clients receive it: none of the fields its external resolver keeps on the server. */
export type Stock = External<StockDoc, typeof stockInternals>
export type InventoryStockData = Static<typeof stockDataSchema>
/** A patch body, or the `$inc` body operator on `quantity` the service accepts (src/hooks/reject-unsafe-keys.ts). */
export type InventoryStockPatch = Static<typeof stockPatchSchema> | { $inc: { quantity: number } }
export type InventoryStockQuery = Static<typeof stockQuerySchema>

/** What a client may call on inventory-stocks: its methods, typed by the schemas (data in, result out). */
export type InventoryStockClientService = Pick<
  ClientService<
    Stock,
    InventoryStockData,
    InventoryStockPatch,
    Paginated<Stock>,
    ClientParams<InventoryStockQuery>
  >,
  (typeof inventoryStockMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [inventoryStockPath]: InventoryStockClientService
  }
}
