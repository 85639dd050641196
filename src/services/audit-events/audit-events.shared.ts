// Path and methods of /audit-events, shared with the typed client: read-only (find, get; GET
// /audit-events/verify checks the hash chain). Every other method is a 405.
export const auditEventPath = 'audit-events'
export const auditEventMethods = ['find', 'get'] as const
