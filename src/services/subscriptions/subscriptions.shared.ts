// Path and methods of the subscriptions service, shared with the typed client (a subscription is never removed:
// it ends as canceled or incomplete_expired).
export const subscriptionPath = 'subscriptions'
export const subscriptionMethods = ['find', 'get', 'create', 'patch'] as const
