// Path and methods of the billing-items service, shared with the typed client.
export const billingItemPath = 'billing-items'
export const billingItemMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
