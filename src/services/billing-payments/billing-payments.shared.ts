// Path and methods of the billing-payments service, shared with the typed client.
export const billingPaymentPath = 'billing-payments'
export const billingPaymentMethods = ['find', 'get', 'create', 'patch'] as const
