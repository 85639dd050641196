// Path and methods of /webhook-events, shared with the typed client. POST creates a webhook or queues a
// ping (by the body's shape); GET lists and reads deliveries; PATCH { retry: true } retries a failed one.
export const webhookEventPath = 'webhook-events'
export const webhookEventMethods = ['find', 'get', 'create', 'patch'] as const
