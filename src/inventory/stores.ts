// The inventory and order services' stores, for the domain functions (internal `_` methods: no hooks, no events).
import type { Application } from '../declarations'
import type { StoreService } from '../store'

export const inventoryPaths = {
  variants: 'inventory-variants',
  stockrooms: 'inventory-stockrooms',
  stocks: 'inventory-stocks',
  movements: 'inventory-stock-movements',
  orders: 'request/orders'
} as const

// `as any`: services are registered by path without a ServiceTypes entry; the store methods are what these functions use.
export const inventoryStores = (app: Application) => ({
  variants: app.service(inventoryPaths.variants as any) as unknown as StoreService,
  stockrooms: app.service(inventoryPaths.stockrooms as any) as unknown as StoreService,
  stocks: app.service(inventoryPaths.stocks as any) as unknown as StoreService,
  movements: app.service(inventoryPaths.movements as any) as unknown as StoreService,
  orders: app.service(inventoryPaths.orders as any) as unknown as StoreService
})
