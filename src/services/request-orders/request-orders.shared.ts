// Path and methods of the request-orders service, shared with the typed client (orders are cancelled, never removed).
export const requestOrderPath = 'request/orders'
export const requestOrderMethods = ['find', 'get', 'create', 'patch'] as const
