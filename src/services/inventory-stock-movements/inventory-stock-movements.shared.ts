// Path and methods of the stock-movement ledger (read-only), shared with the typed client.
export const inventoryStockMovementPath = 'inventory-stock-movements'
export const inventoryStockMovementMethods = ['find', 'get'] as const
