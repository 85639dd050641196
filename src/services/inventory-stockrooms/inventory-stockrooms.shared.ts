// Path and methods of the inventory-stockrooms service, shared with the typed client.
export const inventoryStockroomPath = 'inventory-stockrooms'
export const inventoryStockroomMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
