// /audit-events: the audit trail of patient data and authentication (src/hooks/record-audit.ts), read-only.
// Application admins read every event; a facility's superadmins the events of their facility; a patient the
// events about them (`patient`); every account its own actions (`actor`); nobody anything else (find returns
// nothing of others, get is 404). GET /audit-events/verify (admins only) walks the hash chain. Realtime events
// only to application admins who asked for them over Socket.IO (`subscribe`; src/audit/watchers.ts).
import { authenticate } from '@feathersjs/authentication'
import { Forbidden, MethodNotAllowed } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Application, HookContext, NextFunction } from '../../declarations'
import { defineAccess } from '../../access/rules'
import { superadminOf, type AccessContext } from '../../access/context'
import { accessOf, scopeAccess } from '../../hooks/scope-access'
import { validateQueryWith } from '../../schema/validators'
import { AuditLog, auditLog } from '../../audit/log'
import { AuditEventsService } from './audit-events.class'
import { auditEventQuerySchema } from './audit-events.schema'
import { auditEventMethods, auditEventPath } from './audit-events.shared'
import { runtimeOf } from '../../runtime'
import { auditWatchers } from '../../audit/watchers'

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
  const branches: Query[] = [{ actor: access.accountId }, { patient: access.accountId }]
  if (facilities.length > 0) branches.push({ facility: { $in: facilities } })
  return { $or: branches }
}

// GET /audit-events/verify: application admins only (others 403; no token 401), answered before the read scope.
const answerVerify = async (context: HookContext, next: NextFunction) => {
  if (context.id !== VERIFY_ID) return next()
  const access = await accessOf(context)
  if (!access.admin) throw new Forbidden('Only application admins may verify the audit trail')
  const log = auditLog(context.app)
  if (!log) throw new MethodNotAllowed('The audit trail is not available')
  context.result = await log.verify()
}

export const auditEvents = (app: Application) => {
  const service = new AuditEventsService(app)
  app.use(auditEventPath, service, { methods: [...auditEventMethods], events: [] })
  // The log is a runtime object kept on the app (src/audit/log.ts auditLog).
  runtimeOf(app).auditLog = new AuditLog(app, service.events)

  defineAccess(auditEventPath, {
    read: auditReadQuery,
    // Unreachable (the service exposes find and get only): events are written by the audit log alone.
    create: () => {
      throw new MethodNotAllowed('Audit events cannot be created through the API')
    }
    // No `audience`: realtime audit events go to the admins who subscribed only, through the service's own
    // publisher (src/audit/watchers.ts), which takes precedence over the app's.
  })

  auditWatchers(app, auditEventPath)

  const validateQuery = validateQueryWith(auditEventQuerySchema)
  app.service(auditEventPath).hooks({
    around: {
      all: [authenticate('jwt')],
      find: [validateQuery, scopeAccess],
      get: [validateQuery, answerVerify, scopeAccess]
    }
  })
}
