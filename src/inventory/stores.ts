// The inventory and order services' stores, for the domain functions (internal `_` methods: no hooks, no events).
import type { Application } from '../declarations'
import { storesByPath } from '../store'

export const inventoryPaths = {
  variants: 'inventory-variants',
  stockrooms: 'inventory-stockrooms',
  stocks: 'inventory-stocks',
  movements: 'inventory-stock-movements',
  orders: 'request/orders'
} as const

export const inventoryStores = (app: Application) => storesByPath(app, inventoryPaths)
