// Privilege and configuration changes as audit events: memberships added and removed, roles, privileges and
// superadmin changed, application admin promotion, MFA on and off, password and identity changes, OAuth identity
// links, webhooks registered, changed and removed. Each names the actor (null: the server itself), the account
// whose rights changed (`account`), the organization (`facility`), and the privilege fields before and after —
// never a secret, hash, code or token. Recorded after the change, durably, before the call answers; a change whose
// event cannot be written answers 500 (the change is made, and the failure is logged).
// A service holding privileges or configuration declares at registration how its documents read as a change
// (`declareChangeAudit`, like its access rules); every write it announces on the app's bus (`record.changing` for
// the document before, `record.changed` after) is then recorded, whoever makes it: an external call, or a cascade.
import type { Id, Params } from '@feathersjs/feathers'
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import type { ChangeMethod, PendingChange, RecordChange } from '../events'
import { appSlot } from '../runtime'
import type { AuditAction, AuditEntry, ChangeFields } from './chain'
import { auditLog, type AuditLog } from './log'

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
export const onBehalfOf = <A = unknown>(
  params: Circumstances & { account?: A }
): { account?: A; ip?: string; userAgent?: string; requestId?: string } => ({
  ...(params.account ? { account: params.account } : {}),
  ...(text(params.ip) ? { ip: text(params.ip) } : {}),
  ...(text(params.userAgent) ? { userAgent: text(params.userAgent) } : {}),
  ...(text(params.requestId) ? { requestId: text(params.requestId) } : {})
})

/** Appends the event of one change to `log`; resolves once it is durable. */
export const appendChange = async (log: AuditLog, change: Change, params: Circumstances = {}) => {
  const { status, ...fields } = change
  const entry: AuditEntry = {
    at: log.now(),
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
    log.deps.logger.error(`Audit append failed for the ${change.action} of ${change.service}:`, error)
    throw error
  }
}

/** Appends the event of one change to the app's audit log (when it has one); resolves once it is durable. */
export const recordChange = async (app: Application, change: Change, params: Circumstances = {}) => {
  const log = auditLog(app)
  if (log) await appendChange(log, change, params)
}

/** The fields whose values differ between `before` and `after` (compared as JSON). */
export const changed = (before: ChangeFields, after: ChangeFields) =>
  Object.keys({ ...before, ...after }).some(
    (key) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null)
  )

/** What a change audit reads of one document: the privilege fields — never secrets. */
export interface ChangeSubject {
  /** The account whose rights or settings the document holds. */
  account?: string
  /** The organization it belongs to. */
  facility?: string
  fields: ChangeFields
}

/** The writes that are change events, and the action each records. */
export type ChangeActions = { create: AuditAction; patch: AuditAction; remove: AuditAction }

/** How a service's documents read as privilege or configuration changes. */
export interface ChangeAudit<D = Record<string, unknown>> {
  /** Picks the privilege fields of a document as stored. */
  describe(doc: D): ChangeSubject
  actions: ChangeActions
  /** Reads a document as stored (the state before a write whose call did not load it: internal calls). */
  load?(id: Id): Promise<D>
}

const auditsSlot = appSlot<Map<string, ChangeAudit>>('change audits')

/** Declares that the writes of service `path` are change events (at its registration, like its access rules). */
export const declareChangeAudit = <D>(app: Application, path: string, audit: ChangeAudit<D>) => {
  auditsSlot.ensure(app, () => new Map()).set(path, audit as unknown as ChangeAudit) // (cast: the registry holds every service's declaration)
}

/** The change audit service `path` declared (undefined: none). */
export const changeAuditOf = (app: Application, path: string): ChangeAudit | undefined =>
  auditsSlot.get(app)?.get(path)

const isChangeMethod = (actions: ChangeActions, method: ChangeMethod): method is keyof ChangeActions =>
  Object.hasOwn(actions, method)

const isDoc = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value)

/**
 * Records the change events of one write of `service` (`docs` as stored after it; `existing` the document before,
 * for a patch or removal by id): a patch that changed none of the privilege fields is no event.
 */
export const recordDescribedChanges = async (
  log: AuditLog,
  service: string,
  audit: ChangeAudit,
  method: keyof ChangeActions,
  existing: Record<string, unknown> | undefined,
  docs: unknown[],
  params: Params<unknown> = {}
) => {
  for (const doc of docs) {
    if (!isDoc(doc)) continue
    const after = audit.describe(doc)
    const before = existing ? audit.describe(existing) : undefined
    if (method === 'patch' && before && !changed(before.fields, after.fields)) continue
    const actor = isDoc(params.account) && typeof params.account.id === 'string' ? params.account.id : null
    await appendChange(
      log,
      {
        action: audit.actions[method],
        service,
        actor,
        ...(after.account ? { account: after.account } : {}),
        ...(after.facility ? { facility: after.facility } : {}),
        ids: typeof doc.id === 'string' ? [doc.id] : [],
        ...(method === 'create' ? {} : { before: (before ?? after).fields }),
        ...(method === 'remove' ? {} : { after: after.fields }),
        status: method === 'create' ? 201 : 200
      },
      params
    )
  }
}

// The note `record.changing` leaves for `record.changed`: the document before the write.
const BEFORE = 'audit.changeBefore'

/**
 * Subscribes the change audit to the app's bus: before a patch or removal by id of a declaring service, the document
 * as it was (loaded under the caller's scope by scopeAccess, `params.existing`, or read); after the write, its events.
 */
export const auditChanges = (app: Application, deps: Pick<Deps, 'events'>, log: AuditLog) => {
  const declared = (change: PendingChange) => {
    const audit = changeAuditOf(app, change.path)
    return audit && isChangeMethod(audit.actions, change.method) ? audit : undefined
  }
  const offChanging = deps.events.on('record.changing', async (change) => {
    const audit = declared(change)
    if (!audit || change.method === 'create' || change.id === null) return
    const existing: unknown =
      change.params?.existing ?? (await audit.load?.(change.id).catch(() => undefined))
    if (isDoc(existing)) change.notes.set(BEFORE, existing)
  })
  const offChanged = deps.events.on('record.changed', async (change: RecordChange) => {
    const audit = declared(change)
    if (!audit || !isChangeMethod(audit.actions, change.method)) return
    // A patch or removal of several documents at once (id null) is recorded only when announced by the domain.
    if (change.method !== 'create' && change.id === null && change.params) return
    const before = change.notes.get(BEFORE)
    await recordDescribedChanges(
      log,
      change.path,
      audit,
      change.method,
      isDoc(before) ? before : undefined,
      change.docs,
      change.params
    )
  })
  return () => {
    offChanging()
    offChanged()
  }
}
