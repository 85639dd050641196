// Path and methods of the billing customers service, shared with the typed client (customers are not removed).
export const billingCustomerPath = 'billing/customers'
export const billingCustomerMethods = ['find', 'get', 'create', 'patch'] as const
