// The stock-movement ledger's store: written only by src/inventory/movements.ts (internal calls).
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { StockMovement } from './inventory-stock-movements.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'inventory-stock-movements',
  indexes: [
    { fields: { stock: 1, createdAt: 1 } },
    { fields: { facility: 1, createdAt: -1 } },
    // Recovery: movements left pending by a crash.
    { fields: { status: 1, createdAt: 1 } }
  ]
})

export const createMovementService = (app: Application) => createStore<StockMovement>(app, getOptions(app))
