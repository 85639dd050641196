// Path and methods of the inventory-variants service, shared with the typed client.
export const inventoryVariantPath = 'inventory-variants'
export const inventoryVariantMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
