// Path and methods of the payment intents service, shared with the typed client (intents are never removed).
export const billingPaymentIntentPath = 'billing-payment-intents'
export const billingPaymentIntentMethods = ['find', 'get', 'create', 'patch'] as const
