// Privilege and configuration changes as audit events: memberships added and removed, roles, privileges and
// superadmin changed, application admin promotion, MFA on and off, password and identity changes, OAuth identity
// links, webhooks registered, changed and removed. Each names the actor (null: the server itself), the account
// whose rights changed (`account`), the organization (`facility`), and the privilege fields before and after —
// never a secret, hash, code or token. Recorded after the change, durably, before the call answers; a change whose
// event cannot be written answers 500 (the change is made, and the failure is logged).
import type { Application } from '../declarations'
import { logger } from '../logger'
import type { AuditAction, AuditEntry, ChangeFields } from './chain'
import { auditLog } from './log'

export interface Change {
  action: AuditAction
  /** The service path the change was made through (`organization-members`, `authentication`, `webhooks`, `accounts`). */
  service: string
  actor: string | null
  /** The account whose rights or settings changed. */
  account?: string
  /** The organization the change belongs to (its superadmins see the event). */
  facility?: string
  ids: string[]
  before?: ChangeFields
  after?: ChangeFields
  /** The status of the answer (default 200). */
  status?: number
}

/** Where a call came from, as the request's params carry it (absent for the server's own changes). */
export interface Circumstances {
  ip?: unknown
  userAgent?: unknown
  requestId?: unknown
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined)

/** The call's circumstances (ip, userAgent, requestId) and account, for an internal call made on its behalf. */
export const onBehalfOf = (
  params: Circumstances & { account?: unknown }
): { account?: any; ip?: string; userAgent?: string; requestId?: string } => ({
  ...(params.account ? { account: params.account } : {}),
  ...(text(params.ip) ? { ip: text(params.ip) } : {}),
  ...(text(params.userAgent) ? { userAgent: text(params.userAgent) } : {}),
  ...(text(params.requestId) ? { requestId: text(params.requestId) } : {})
})

/** Appends the event of one change; resolves once it is durable. */
export const recordChange = async (app: Application, change: Change, params: Circumstances = {}) => {
  const log = auditLog(app)
  if (!log) return
  const { status, ...fields } = change
  const entry: AuditEntry = {
    at: Date.now(),
    ...fields,
    outcome: 'allowed',
    status: status ?? 200,
    ...(text(params.ip) ? { ip: text(params.ip) } : {}),
    ...(text(params.userAgent) ? { userAgent: text(params.userAgent) } : {}),
    ...(text(params.requestId) ? { requestId: text(params.requestId) } : {})
  }
  try {
    await log.append([entry])
  } catch (error) {
    logger.error(`Audit append failed for the ${change.action} of ${change.service}:`, error)
    throw error
  }
}

/** The fields whose values differ between `before` and `after` (compared as JSON). */
export const changed = (before: ChangeFields, after: ChangeFields) =>
  Object.keys({ ...before, ...after }).some(
    (key) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null)
  )
