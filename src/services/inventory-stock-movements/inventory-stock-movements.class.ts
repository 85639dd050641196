// The stock-movement ledger's store: written only by src/inventory/movements.ts (internal calls).
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { StockMovement } from './inventory-stock-movements.schema'
import type {
  InventoryStockMovementData,
  InventoryStockMovementPatch,
  InventoryStockMovementQuery
} from './inventory-stock-movements.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'inventory-stock-movements',
  indexes: [
    { fields: { stock: 1, createdAt: 1 } },
    { fields: { facility: 1, createdAt: -1 } },
    // Recovery: movements left pending by a crash.
    { fields: { status: 1, createdAt: 1 } }
  ]
})

/** The inventory-stock-movements service as the app holds it: the store's adapter typed by the schemas. */
export type InventoryStockMovementService = StoreService<
  Stored<StockMovement>,
  InventoryStockMovementData,
  InventoryStockMovementPatch,
  InventoryStockMovementQuery
>

export const createMovementService = (app: Application): InventoryStockMovementService =>
  createStore<
    Stored<StockMovement>,
    InventoryStockMovementData,
    InventoryStockMovementPatch,
    InventoryStockMovementQuery
  >(app, getOptions(app))
