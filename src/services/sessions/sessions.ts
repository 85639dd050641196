// Sessions: GET /sessions lists the caller's sign-in sessions (the asking one marked `current`), DELETE
// /sessions/:id ends one. Every account sees only its own (anyone else's is a 404); an application admin may read
// and end any account's, and lists another account's only when asking for it by `account` (a list without it is
// the admin's own). Organization superadmins have no say over their members' sessions. Sessions are made by
// sign-ins (src/auth/refresh.ts), never by POST here; their hashes never leave the server.
import { authenticate } from '@feathersjs/authentication'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { accessOf, scopeAccess } from '../../hooks/scope-access'
import { validateQueryWith } from '../../schema/validators'
import { externalView } from '../../schema/external'
import { SID_CLAIM } from '../../auth/refresh'
import { SessionService } from './sessions.class'
import { sessionExternalResolver, sessionQuerySchema } from './sessions.schema'
import { sessionMethods, sessionPath } from './sessions.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [sessionPath]: SessionService
  }
}

// An application admin's list without `account` is of the admin's own sessions, not of every account's.
const ownListUnlessAsked = async (context: HookContext, next: NextFunction) => {
  if (context.params.provider && context.params.account) {
    const query = context.params.query ?? {}
    const access = await accessOf(context)
    if (access.admin && query.account === undefined)
      context.params = { ...context.params, query: { ...query, account: access.accountId } }
  }
  await next()
}

// Marks the session of the asking token `current: true` (others `false`) in what the caller receives.
const markCurrent = async (context: HookContext, next: NextFunction) => {
  await next()
  const sid = context.params.authentication?.payload?.[SID_CLAIM]
  if (!context.params.provider || typeof sid !== 'string') return
  const mark = (doc: unknown) =>
    doc && typeof doc === 'object' ? { ...doc, current: (doc as { id?: unknown }).id === sid } : doc
  const result = context.dispatch ?? context.result
  const marked = Array.isArray(result)
    ? result.map(mark)
    : result && typeof result === 'object' && Array.isArray((result as { data?: unknown }).data)
      ? { ...result, data: (result as { data: unknown[] }).data.map(mark) }
      : mark(result)
  context.dispatch = marked
}

export const sessions = (app: Application, deps: Deps) => {
  app.use(sessionPath, new SessionService(app, deps), { methods: [...sessionMethods], events: [] })

  defineAccess(app, sessionPath, {
    read: (access) => (access.admin ? null : { account: access.accountId }),
    create: () => {
      throw new Error('Sessions are not created through the service')
    },
    audience: (doc) => [`accounts/${doc.account}`]
  })

  app.service(sessionPath).hooks({
    around: {
      all: [authenticate('jwt'), markCurrent, externalView(app, sessionPath, sessionExternalResolver)],
      find: [validateQueryWith(sessionQuerySchema), ownListUnlessAsked, scopeAccess],
      get: [validateQueryWith(sessionQuerySchema), scopeAccess],
      remove: [validateQueryWith(sessionQuerySchema), scopeAccess]
    }
  })
}
