// Exists so that every external access to patient data and every authentication event is in the audit trail,
// on every transport and for every service, present or future, that declares `audit` next to its access rules
// (src/access/rules.ts): after the call (allowed: the ids, patient and facility of what it returned; denied:
// the requested id and the error's status), the events are durably appended (src/audit/log.ts) before the
// response is sent. Never record contents, tokens, codes or passwords: only ids and the call's circumstances.
// Patient and facility come from the stored documents, never from what the caller chose to see: a `$select`
// is widened to the fields the audit reads, which are then left out of what the caller receives (`dispatch`).
import type { AuthenticationService } from '@feathersjs/authentication'
import type { HookContext, NextFunction } from '../declarations'
import { accessRules, type AuditDeclaration } from '../access/rules'
import type { AuditAction, AuditEntry } from '../audit/chain'
import { auditLog, type AuditLog } from '../audit/log'
import { callCircumstances, docsOf, entriesFor, idString, isObject } from '../audit/entries'
import { getDispatch, setDispatch } from '@feathersjs/schema'
import { normalizeEmail } from '../auth/accounts'
import { logger } from '../logger'

const METHOD_ACTIONS: Record<string, AuditAction> = {
  find: 'read',
  get: 'read',
  create: 'create',
  patch: 'patch',
  update: 'update',
  remove: 'remove'
}

// The authentication actions that are audit events (the others only issue codes, whose use is 'action-code').
const AUTH_ACTIONS: Record<string, AuditAction> = {
  applyActionCode: 'action-code',
  setupMFA: 'mfa',
  disableMFA: 'mfa',
  'logout-everywhere': 'logout-everywhere'
}

const statusOf = (error: any) =>
  typeof error?.code === 'number' && error.code >= 400 && error.code < 600 ? error.code : 500

const circumstances = (context: HookContext) => callCircumstances(context.params)

// A field and a `$select` entry overlap when one is the other or lies inside it (`owner` and `owner.organization`).
const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`)

/**
 * Widens the call's `$select` (when it has one) to the stored fields the audit reads; answers the fields added,
 * which the caller did not ask for. (A `$select` that is not a list of names is left to the service's validator.)
 */
const widenSelect = (context: HookContext, declaration: AuditDeclaration): string[] => {
  const query = context.params.query
  if (
    !isObject(query) ||
    !Array.isArray(query.$select) ||
    !query.$select.every((name) => typeof name === 'string')
  )
    return []
  const select = query.$select as string[]
  const added = declaration.fields.filter((field) => !select.some((name) => overlaps(name, field)))
  if (added.length > 0)
    context.params = { ...context.params, query: { ...query, $select: [...select, ...added] } }
  return added
}

/** Deletes a (dotted) field, and the objects it leaves empty. */
const unset = (doc: Record<string, any>, field: string) => {
  const [head, ...rest] = field.split('.')
  if (!Object.hasOwn(doc, head)) return
  if (rest.length === 0 || !isObject(doc[head])) {
    delete doc[head]
    return
  }
  unset(doc[head], rest.join('.'))
  if (Object.keys(doc[head]).length === 0) delete doc[head]
}

/**
 * What the caller receives leaves out the fields added to their `$select`: each document's client view
 * (`dispatch`, src/schema/external.ts) loses them — made for documents that had none — and `context.result`
 * stays whole for internal callers and the realtime and webhook recorders.
 */
const hideAdded = (context: HookContext, added: string[]) => {
  const docs = docsOf(context.result)
  for (const doc of docs) {
    const shown = getDispatch(doc)
    if (shown) {
      for (const field of added) unset(shown, field)
    } else {
      const copy = { ...doc }
      for (const field of added) unset(copy, field)
      setDispatch(doc, copy)
    }
  }
  if (context.dispatch !== undefined) return
  const result: any = context.result
  if (isObject(result) && Array.isArray(result.data))
    context.dispatch = { ...result, data: result.data.map((doc: unknown) => getDispatch(doc) ?? doc) }
  else if (Array.isArray(result)) context.dispatch = result.map((doc) => getDispatch(doc) ?? doc)
  else context.dispatch = getDispatch(result) ?? result
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
    const payload = await (
      context.app.service('authentication') as unknown as AuthenticationService
    ).verifyAccessToken(token)
    return typeof payload?.sub === 'string' ? payload.sub : null
  } catch {
    return null
  }
}

const auditAuthentication = async (context: HookContext, next: NextFunction, log: AuditLog) => {
  const data = isObject(context.data) ? context.data : {}
  const at = Date.now()
  // (own keys only: `{ action: 'constructor' }` is no audit action)
  const action =
    typeof data.action === 'string' && Object.hasOwn(AUTH_ACTIONS, data.action)
      ? AUTH_ACTIONS[data.action]
      : undefined
  const login = data.action === undefined
  if (!action && !login) return next()
  const strategy =
    typeof data.strategy === 'string' ? data.strategy : data.email !== undefined ? 'local' : undefined
  const subject =
    strategy === 'local' && typeof data.email === 'string'
      ? String(normalizeEmail(data.email)).slice(0, 254)
      : undefined
  const base = { at, service: 'authentication', ...circumstances(context) }
  try {
    await next()
  } catch (error) {
    const actor = login ? null : await tokenAccount(context)
    const entry: AuditEntry = {
      ...base,
      actor,
      action: login ? 'login-failed' : (action as AuditAction),
      ids: [],
      outcome: 'denied',
      status: statusOf(error),
      ...(subject ? { subject } : {})
    }
    await record(log, [entry], context)
    throw error
  }
  const result = context.result
  const account = isObject(result)
    ? isObject(result.account)
      ? idString(result.account.id)
      : idString(result.account)
    : undefined
  const actor = account ?? (await tokenAccount(context))
  const entry: AuditEntry = {
    ...base,
    actor,
    action: login ? 'login' : (action as AuditAction),
    ids: actor ? [actor] : [],
    outcome: 'allowed',
    status: 201
  }
  await record(log, [entry], context)
}

export const recordAudit = async (context: HookContext, next: NextFunction) => {
  const log = context.params.provider ? auditLog(context.app) : undefined
  if (!log || !log.settings.enabled) return next()
  if (context.path === 'authentication')
    return context.method === 'create' ? auditAuthentication(context, next, log) : next()
  const declaration = accessRules(context.app, context.path)?.audit
  const action = Object.hasOwn(METHOD_ACTIONS, context.method) ? METHOD_ACTIONS[context.method] : undefined
  if (!declaration || !action) return next()

  const at = Date.now()
  const requested = idString(context.id)
  const base = { at, action, service: context.path, ...circumstances(context) }
  const added = widenSelect(context, declaration)
  try {
    await next()
  } catch (error) {
    // Denied (or failed): who tried what; the patient and facility of a document they may not see stay unsaid.
    const entry: AuditEntry = {
      ...base,
      actor: idString(context.params.account?.id) ?? null,
      ids: requested ? [requested] : [],
      outcome: 'denied',
      status: statusOf(error)
    }
    await record(log, [entry], context)
    throw error
  }
  const status = context.http?.status ?? (context.method === 'create' ? 201 : 200)
  const allowed = {
    ...base,
    actor: idString(context.params.account?.id) ?? null,
    outcome: 'allowed' as const,
    status
  }
  // From the stored documents (the call's `$select` was widened to the fields the audit reads).
  await record(log, await entriesFor(context.app, declaration, allowed, docsOf(context.result)), context)
  if (added.length > 0) hideAdded(context, added)
}
