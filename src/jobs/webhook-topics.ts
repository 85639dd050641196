// What a webhook subscribes to, as the delivery queue matches it: the methods whose successful writes are events,
// the services that never produce events, the audit anchor event and the topics an event matches. The parsing of a
// webhook's `events` field against the app's services is the webhooks service's own
// (src/services/webhooks/webhook-patterns.ts).

/** Service methods whose successful calls are events. */
export const EVENT_METHODS = ['create', 'update', 'patch', 'remove'] as const
export type EventMethod = (typeof EVENT_METHODS)[number]

/** Whether `method` is a write whose success is an event. */
export const isEventMethod = (method: string): method is EventMethod =>
  (EVENT_METHODS as readonly string[]).includes(method)

/** The webhook services themselves never produce webhook events (their documents carry secrets and schedules). */
export const WEBHOOK_SERVICE_PATHS = ['webhooks', 'webhook-events']

/**
 * The audit log's anchor (src/audit/anchors.ts): not a service event but the chain's head, sent to the webhooks that
 * name it (application admins' own webhooks only); `*` does not include it.
 */
export const ANCHOR_EVENT = 'audit.anchor'

/** Services that can never be subscribed to: the webhook ones, and the audit trail (its events are no one's business but its readers'). */
export const UNSUBSCRIBABLE_PATHS = [...WEBHOOK_SERVICE_PATHS, 'audit-events']

/** Topics a `<path>.<method>` event matches: `*`, `<path>.*` and itself. */
export const topicsMatching = (path: string, method: string) => ['*', `${path}.*`, `${path}.${method}`]
