// Path and methods of the billing-invoices service, shared with the typed client.
export const billingInvoicePath = 'billing-invoices'
export const billingInvoiceMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
