// Path and methods of the webhooks service, shared with the typed client. Creation is POST /webhook-events
// (as the interface says), so `create` is not exposed here.
export const webhookPath = 'webhooks'
export const webhookMethods = ['find', 'get', 'patch', 'remove'] as const
