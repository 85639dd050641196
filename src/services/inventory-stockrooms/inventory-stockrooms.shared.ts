// Path and methods of the inventory-stockrooms service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Stockroom,
  stockroomDataSchema,
  stockroomPatchSchema,
  stockroomQuerySchema
} from './inventory-stockrooms.schema'

export const inventoryStockroomPath = 'inventory-stockrooms'
export const inventoryStockroomMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

export type { Stockroom }
export type InventoryStockroomData = Static<typeof stockroomDataSchema>
export type InventoryStockroomPatch = Static<typeof stockroomPatchSchema>
export type InventoryStockroomQuery = Static<typeof stockroomQuerySchema>

/** What a client may call on inventory-stockrooms: its methods, typed by the schemas (data in, result out). */
export type InventoryStockroomClientService = Pick<
  ClientService<
    Stockroom,
    InventoryStockroomData,
    InventoryStockroomPatch,
    Paginated<Stockroom>,
    ClientParams<InventoryStockroomQuery>
  >,
  (typeof inventoryStockroomMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [inventoryStockroomPath]: InventoryStockroomClientService
  }
}
