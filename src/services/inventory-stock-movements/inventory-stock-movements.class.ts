// The stock-movement ledger: read-only for clients, written only by src/inventory/movements.ts (through
// `deps.stores.movements`, announced there).
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, Stored } from '../../store'
import { ResourceService } from '../resource'
import type { StockMovement } from './inventory-stock-movements.schema'
import {
  inventoryStockMovementPath,
  type InventoryStockMovementData,
  type InventoryStockMovementPatch,
  type InventoryStockMovementQuery
} from './inventory-stock-movements.shared'

export const getOptions = (): StoreOptions => ({
  name: 'inventory-stock-movements',
  indexes: [
    { fields: { stock: 1, createdAt: 1 } },
    { fields: { facility: 1, createdAt: -1 } },
    // Recovery: movements left pending by a crash.
    { fields: { status: 1, createdAt: 1 } }
  ]
})

export class InventoryStockMovementService extends ResourceService<
  Stored<StockMovement>,
  InventoryStockMovementData,
  InventoryStockMovementPatch,
  InventoryStockMovementQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, inventoryStockMovementPath, getOptions())
  }
}
