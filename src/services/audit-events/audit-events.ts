// /audit-events: the audit trail of patient data and authentication (src/hooks/record-audit.ts) and of privilege and
// configuration changes (src/audit/changes.ts), read-only. Application admins read every event; a facility's
// superadmins the events of their facility (its memberships and webhooks included); a patient the events about them
// (`patient`); every account its own actions (`actor`) and the changes of its own rights (`account`); nobody anything
// else (find returns nothing of others, get is 404). GET /audit-events/verify (admins only) walks the hash chain and
// answers its head. Over REST, `Accept: text/csv` answers a find as CSV (src/audit/csv.ts). Realtime events only to
// application admins who asked for them over Socket.IO (`subscribe`; src/audit/watchers.ts).
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { BadRequest, Forbidden, MethodNotAllowed } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { superadminOf, type AccessContext } from '../../access/context'
import { accessOf, scopeAccess } from '../../hooks/scope-access'
import { check, queryValidator, validateQueryWith } from '../../schema/validators'
import { auditEventsCsv } from '../../audit/csv'
import { AuditLog, auditLogSlot, auditLog } from '../../audit/log'
import { AuditEventsService } from './audit-events.class'
import { auditEventQuerySchema, verifyQuerySchema } from './audit-events.schema'
import { auditEventMethods, auditEventPath } from './audit-events.shared'
import { auditWatched, auditWatchers, emitAuditEvents } from '../../audit/watchers'
import { auditChanges } from '../../audit/changes'
import { actorNames } from '../../hooks/party-names'

declare module '../../declarations' {
  interface ServiceTypes {
    [auditEventPath]: AuditEventsService
  }
}

/** The id of GET /audit-events/verify. */
export const VERIFY_ID = 'verify'

/** The events `access` may read, as a store query (null: all of them). */
export const auditReadQuery = (access: AccessContext): Query | null => {
  if (access.admin) return null
  const facilities = superadminOf(access)
  const branches: Query[] = [
    { actor: access.accountId },
    { patient: access.accountId },
    { account: access.accountId }
  ]
  if (facilities.length > 0) branches.push({ facility: { $in: facilities } })
  return { $or: branches }
}

// GET /audit-events/verify: application admins only (others 403; no token 401), answered before the read scope;
// `?seq=…&hash=…` (both or neither) asks whether the log still holds that witnessed head.
const answerVerify = async (context: HookContext, next: NextFunction) => {
  if (context.id !== VERIFY_ID) return next()
  const access = await accessOf(context)
  if (!access.admin) throw new Forbidden('Only application admins may verify the audit trail')
  const query = check<{ seq?: number; hash?: string }>(
    queryValidator,
    verifyQuerySchema,
    { ...(context.params.query ?? {}) },
    'query'
  )
  if ((query.seq === undefined) !== (query.hash === undefined)) {
    const field = query.seq === undefined ? 'seq' : 'hash'
    throw new BadRequest(
      `Invalid query: '${field}' is required with '${field === 'seq' ? 'hash' : 'seq'}' (a witnessed head is both)`,
      { errors: [{ field, message: 'is required' }] }
    )
  }
  const log = auditLog(context.app)
  if (!log) throw new MethodNotAllowed('The audit trail is not available')
  context.result = await log.verify(
    query.seq === undefined ? undefined : { seq: query.seq, hash: query.hash! }
  )
}

// REST: `Accept: text/csv` (preferred over JSON) on GET /audit-events answers the find as CSV: the same call, its
// hooks, access rules and filters; the page is larger (AuditEventsService.find), its total in X-Total-Count.
const csvRequest = async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
  const lookup = (ctx as unknown as { lookup?: { params?: Record<string, string> } }).lookup // (set by the REST router)
  if (
    ctx.method === 'GET' &&
    !lookup?.params?.__id &&
    ctx.accepts('application/json', 'text/csv') === 'text/csv'
  ) {
    ctx.feathers = { ...ctx.feathers, csv: true }
  }
  ctx.vary('Accept')
  await next()
}

const csvAnswer = async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
  const page = ctx.body as { total?: number; data?: unknown[] } | undefined
  if (ctx.feathers?.csv && ctx.hook?.method === 'find' && page && Array.isArray(page.data)) {
    ctx.set('X-Total-Count', String(page.total ?? page.data.length))
    ctx.set('Content-Disposition', 'attachment; filename="audit-events.csv"')
    ctx.type = 'text/csv; charset=utf-8'
    ctx.body = auditEventsCsv(page.data as Record<string, unknown>[])
  }
  await next()
}

export const auditEvents = (app: Application, deps: Deps) => {
  const service = new AuditEventsService(app, deps)
  app.use(auditEventPath, service, {
    methods: [...auditEventMethods],
    events: [],
    koa: { before: [csvRequest], after: [csvAnswer] }
  })
  const emitter = app.service(auditEventPath)
  // The log is per-app state, read by the audit hooks through `auditLog(app)`; appended events go to the admins
  // watching the trail live (src/audit/watchers.ts).
  const log = auditLogSlot.set(
    app,
    new AuditLog(
      app,
      deps,
      service.events,
      (events) => emitAuditEvents(app, emitter, events),
      () => auditWatched(app)
    )
  )
  // The privilege and configuration changes the services declare (src/audit/changes.ts).
  auditChanges(app, deps, log)

  defineAccess(app, auditEventPath, {
    read: auditReadQuery,
    // Unreachable (the service exposes find and get only): events are written by the audit log alone.
    create: () => {
      throw new MethodNotAllowed('Audit events cannot be created through the API')
    }
    // No `audience`: realtime audit events go to the admins who subscribed only, through the service's own
    // publisher (src/audit/watchers.ts), which takes precedence over the app's.
  })

  auditWatchers(app, emitter)

  const validateQuery = validateQueryWith(auditEventQuerySchema)
  app.service(auditEventPath).hooks({
    around: {
      all: [populate, authenticate('jwt')],
      find: [actorNames(deps), validateQuery, scopeAccess],
      get: [answerVerify, actorNames(deps), validateQuery, scopeAccess]
    }
  })
}
