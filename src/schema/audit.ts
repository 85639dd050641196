// The audit trail's vocabulary: the actions an audit event records, the privilege fields of a change event and the
// transports data leaves by. Base layer: the audit-events contract (its schema) and the audit domain both read it.
export type AuditAction =
  | 'read'
  | 'create'
  | 'patch'
  | 'update'
  | 'remove'
  | 'login'
  | 'login-failed'
  | 'mfa'
  | 'action-code'
  | 'logout-everywhere'
  // A rotated refresh token was presented again (after the grace window): its session was ended.
  | 'refresh-reuse'
  // Privilege and configuration changes (src/audit/changes.ts): who changed whose rights or settings, with the
  // privilege fields before and after.
  | 'member-add'
  | 'member-remove'
  | 'privilege-change'
  | 'admin-promote'
  | 'mfa-enable'
  | 'mfa-disable'
  | 'password-change'
  | 'identity-change'
  | 'identity-link'
  | 'webhook-add'
  | 'webhook-change'
  | 'webhook-remove'
  | 'audit-config'
  // The log's own events (src/audit/log.ts): a retention pass and its floor, an anchor of the chain's head.
  | 'retention'
  | 'anchor'
  // The audit trail's file was repaired after two writers (src/audit/repair-chain.ts); `ids`: the events re-chained.
  | 'store-repair'
  // A bulk export of a facility's data (FHIR `$export`): `ids` the export job, `after` the resources by type.
  | 'export'

/** Every action, in the order the documentation lists them. */
export const AUDIT_ACTIONS: readonly AuditAction[] = [
  'read',
  'create',
  'patch',
  'update',
  'remove',
  'login',
  'login-failed',
  'mfa',
  'action-code',
  'logout-everywhere',
  'refresh-reuse',
  'member-add',
  'member-remove',
  'privilege-change',
  'admin-promote',
  'mfa-enable',
  'mfa-disable',
  'password-change',
  'identity-change',
  'identity-link',
  'webhook-add',
  'webhook-change',
  'webhook-remove',
  'audit-config',
  'retention',
  'anchor',
  'store-repair',
  'export'
]

/** The privilege or setting fields of a change event (never secrets or hashes): field → value. */
export type ChangeFields = Record<string, string | number | boolean | null | string[]>

/** How the data left: a call over REST or Socket.IO, a realtime event sent to a socket, a webhook delivery. */
export type AuditVia = 'rest' | 'socketio' | 'realtime' | 'webhook'
