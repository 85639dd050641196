// Path and methods of the subscription packages service, shared with the typed client (packages are deactivated, not removed).
export const subscriptionPackagePath = 'subscription/packages'
export const subscriptionPackageMethods = ['find', 'get', 'create', 'patch'] as const
