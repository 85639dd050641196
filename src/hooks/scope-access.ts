// Enforces the service's read/write rules (src/access/rules.ts) in the query itself, so external callers
// never load what they may not read: unreadable ids are 404, readable-but-not-writable ones 403.
import { Forbidden, NotAuthenticated } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'
import { accessRules, matches } from '../access/rules'
import { loadAccessContext, type AccessContext } from '../access/context'

/** The caller's access context, loaded once per call. */
export const accessOf = async (context: HookContext): Promise<AccessContext> => {
  if (!context.params.access) {
    context.params = { ...context.params, access: await loadAccessContext(context.app, context.params.account) }
  }
  return context.params.access as AccessContext
}

const withScope = (query: any, scope: any) => (scope ? { ...query, $and: [...(query?.$and ?? []), scope] } : { ...query })

export const scopeAccess = async (context: HookContext, next: NextFunction) => {
  const { params, method, id } = context
  const rules = accessRules(context.path)
  if (!params.provider || !rules || method === 'create') return next()
  if (!params.account) throw new NotAuthenticated('Not authenticated')

  const access = await accessOf(context)
  const read = rules.read(access)
  const query = withScope(params.query ?? {}, read)

  if ((method === 'patch' || method === 'update' || method === 'remove') && id !== null && id !== undefined) {
    const existing = await (context.service as any)._get(id, { query: withScope({}, read) })
    const write = rules.write ? rules.write(access, method) : read
    if (!matches(write, existing)) throw new Forbidden(`You may not ${method} this record`)
    context.params = { ...context.params, existing }
  }
  context.params = { ...context.params, query }
  await next()
}
