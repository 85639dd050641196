// Exists so that every external access to patient data and every authentication event is in the audit trail,
// on every transport and for every service, present or future, that declares `audit` next to its access rules
// (src/access/rules.ts): after the call (allowed: the ids, patient and facility of what it returned; denied:
// the requested id and the error's status), the events are durably appended (src/audit/log.ts) before the
// response is sent. Never record contents, tokens, codes or passwords: only ids and the call's circumstances.
import { randomUUID } from 'node:crypto'
import type { AuthenticationService } from '@feathersjs/authentication'
import type { Application, HookContext, NextFunction } from '../declarations'
import { accessRules, type AuditDeclaration } from '../access/rules'
import type { AuditAction, AuditEntry } from '../audit/chain'
import { auditLog, type AuditLog } from '../audit/log'
import { normalizeEmail } from '../services/accounts/accounts'
import { logger } from '../logger'

const METHOD_ACTIONS: Record<string, AuditAction> = { find: 'read', get: 'read', create: 'create', patch: 'patch', update: 'update', remove: 'remove' }

// The authentication actions that are audit events (the others only issue codes, whose use is 'action-code').
const AUTH_ACTIONS: Record<string, AuditAction> = { applyActionCode: 'action-code', setupMFA: 'mfa', disableMFA: 'mfa', 'logout-everywhere': 'logout-everywhere' }

const statusOf = (error: any) => (typeof error?.code === 'number' && error.code >= 400 && error.code < 600 ? error.code : 500)

const isObject = (value: unknown): value is Record<string, any> => !!value && typeof value === 'object' && !Array.isArray(value)

const idString = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined)

/** The documents of a result: a page, a list or one document. */
const docsOf = (result: unknown): Record<string, any>[] => {
  const list = isObject(result) && Array.isArray(result.data) ? result.data : Array.isArray(result) ? result : [result]
  return list.filter(isObject)
}

const circumstances = (context: HookContext) => ({
  ...(typeof context.params.ip === 'string' ? { ip: context.params.ip } : {}),
  ...(typeof context.params.userAgent === 'string' ? { userAgent: context.params.userAgent } : {}),
  requestId: typeof context.params.requestId === 'string' ? context.params.requestId : randomUUID()
})

/** One event per (patient, facility) of the returned documents, so each patient sees the accesses about them. */
const successEntries = async (app: Application, declaration: AuditDeclaration, base: Omit<AuditEntry, 'ids'>, docs: Record<string, any>[]) => {
  if (docs.length === 0) return [{ ...base, ids: [] }]
  const groups = new Map<string, AuditEntry>()
  for (const doc of docs) {
    const patient = idString(await declaration.patient(doc, app))
    const facility = idString(await declaration.facility?.(doc, app))
    const key = JSON.stringify([patient ?? null, facility ?? null])
    let entry = groups.get(key)
    if (!entry) {
      entry = { ...base, ids: [], ...(patient ? { patient } : {}), ...(facility ? { facility } : {}) }
      groups.set(key, entry)
    }
    const id = idString(doc.id)
    if (id) entry.ids.push(id)
  }
  return [...groups.values()]
}

const record = async (log: AuditLog, entries: AuditEntry[], context: HookContext) => {
  try {
    await log.append(entries)
  } catch (error) {
    // An access that cannot be recorded is not answered as if it had been.
    logger.error(`Audit append failed for ${context.path}.${context.method}:`, error)
    throw error
  }
}

/** The account id of a Bearer token, when the call carries a valid one (authentication actions). */
const tokenAccount = async (context: HookContext): Promise<string | null> => {
  const token = context.params.authentication?.accessToken
  if (typeof token !== 'string') return null
  try {
    const payload = await (context.app.service('authentication') as unknown as AuthenticationService).verifyAccessToken(token)
    return typeof payload?.sub === 'string' ? payload.sub : null
  } catch {
    return null
  }
}

const auditAuthentication = async (context: HookContext, next: NextFunction, log: AuditLog) => {
  const data = isObject(context.data) ? context.data : {}
  const at = Date.now()
  // (own keys only: `{ action: 'constructor' }` is no audit action)
  const action = typeof data.action === 'string' && Object.hasOwn(AUTH_ACTIONS, data.action) ? AUTH_ACTIONS[data.action] : undefined
  const login = data.action === undefined
  if (!action && !login) return next()
  const strategy = typeof data.strategy === 'string' ? data.strategy : data.email !== undefined ? 'local' : undefined
  const subject = strategy === 'local' && typeof data.email === 'string' ? String(normalizeEmail(data.email)).slice(0, 254) : undefined
  const base = { at, service: 'authentication', ...circumstances(context) }
  try {
    await next()
  } catch (error) {
    const actor = login ? null : await tokenAccount(context)
    const entry: AuditEntry = { ...base, actor, action: login ? 'login-failed' : (action as AuditAction), ids: [], outcome: 'denied', status: statusOf(error), ...(subject ? { subject } : {}) }
    await record(log, [entry], context)
    throw error
  }
  const result = context.result
  const account = isObject(result) ? (isObject(result.account) ? idString(result.account.id) : idString(result.account)) : undefined
  const actor = account ?? (await tokenAccount(context))
  const entry: AuditEntry = { ...base, actor, action: login ? 'login' : (action as AuditAction), ids: actor ? [actor] : [], outcome: 'allowed', status: 201 }
  await record(log, [entry], context)
}

export const recordAudit = async (context: HookContext, next: NextFunction) => {
  const log = context.params.provider ? auditLog(context.app) : undefined
  if (!log || !log.settings.enabled) return next()
  if (context.path === 'authentication') return context.method === 'create' ? auditAuthentication(context, next, log) : next()
  const declaration = accessRules(context.path)?.audit
  const action = Object.hasOwn(METHOD_ACTIONS, context.method) ? METHOD_ACTIONS[context.method] : undefined
  if (!declaration || !action) return next()

  const at = Date.now()
  const requested = idString(context.id)
  const base = { at, action, service: context.path, ...circumstances(context) }
  try {
    await next()
  } catch (error) {
    // Denied (or failed): who tried what; the patient and facility of a document they may not see stay unsaid.
    const entry: AuditEntry = { ...base, actor: idString(context.params.account?.id) ?? null, ids: requested ? [requested] : [], outcome: 'denied', status: statusOf(error) }
    await record(log, [entry], context)
    throw error
  }
  const status = context.http?.status ?? (context.method === 'create' ? 201 : 200)
  const allowed = { ...base, actor: idString(context.params.account?.id) ?? null, outcome: 'allowed' as const, status }
  await record(log, await successEntries(context.app, declaration, allowed, docsOf(context.dispatch ?? context.result)), context)
}
