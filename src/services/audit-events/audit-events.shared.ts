// Path and methods of /audit-events, shared with the typed client: read-only (find, get; GET
// /audit-events/verify checks the hash chain), plus `subscribe`/`unsubscribe` for an application admin's Socket.IO
// connection to receive audit events as they are appended. Every other method is a 405.
export const auditEventPath = 'audit-events'
export const auditEventMethods = ['find', 'get', 'subscribe', 'unsubscribe'] as const
