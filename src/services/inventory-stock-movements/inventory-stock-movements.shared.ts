// Path and methods of the stock-movement ledger (read-only), shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type { StockMovement, movementQuerySchema } from './inventory-stock-movements.schema'

export const inventoryStockMovementPath = 'inventory-stock-movements'
export const inventoryStockMovementMethods = ['find', 'get'] as const

export type { StockMovement }
export type InventoryStockMovementData = never
export type InventoryStockMovementPatch = never
export type InventoryStockMovementQuery = Static<typeof movementQuerySchema>

/** What a client may call on inventory-stock-movements: its methods, typed by the schemas (data in, result out). */
export type InventoryStockMovementClientService = Pick<
  ClientService<
    StockMovement,
    InventoryStockMovementData,
    InventoryStockMovementPatch,
    Paginated<StockMovement>,
    ClientParams<InventoryStockMovementQuery>
  >,
  (typeof inventoryStockMovementMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [inventoryStockMovementPath]: InventoryStockMovementClientService
  }
}
