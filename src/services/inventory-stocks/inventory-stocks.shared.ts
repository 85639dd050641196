// Path and methods of the inventory-stocks service, shared with the typed client (stocks are moved, never removed).
export const inventoryStockPath = 'inventory-stocks'
export const inventoryStockMethods = ['find', 'get', 'create', 'patch'] as const
