// The single access path of every service with rules (src/access/rules.ts), for external calls on every
// transport:
// - create: the service's `create` rule checks the new document's data (404 / 403);
// - find/get: the read rule is added to the store query, so nothing unreadable is ever loaded;
// - patch/update/remove: the document is loaded under the read rule (404 when unreadable) and checked against
//   the write rule (403); then the caller's write scope (read ∧ write) is added to the store query of the
//   write itself and kept in `params.writeScope`, which every domain write of the call adds to its own store
//   query. A write therefore never touches a document its check did not cover, even if rights change
//   between the check and the write (then it is a 404).
// The facility's subscription has its say after this hook, on the services holding facility data
// (src/hooks/require-subscription.ts).
import { Forbidden, NotAuthenticated } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'
import { accessRules, matches, within, type WriteMethod } from '../access/rules'
import { loadAccessContext, type AccessContext } from '../access/context'

/** The caller's access context, loaded once per call. */
export const accessOf = async (context: Pick<HookContext, 'app' | 'params'>): Promise<AccessContext> => {
  if (!context.params.access) {
    context.params = {
      ...context.params,
      access: await loadAccessContext(context.app, context.params.account)
    }
  }
  return context.params.access as AccessContext
}

export const scopeAccess = async (context: HookContext, next: NextFunction) => {
  const { params, method, id } = context
  const rules = accessRules(context.app, context.path)
  if (!params.provider || !rules) return next()
  // Every call of a signed-in caller carries its own access context, loaded for this call (a realtime connection's
  // channels keep theirs apart: a call never acts on rights a membership change has just taken away).
  const access = params.account ? await accessOf(context) : undefined
  if (method === 'create' && rules.create === 'anyone') return next()
  if (!access) throw new NotAuthenticated('Not authenticated')

  if (method === 'create') {
    if (rules.create !== 'anyone') await rules.create(access, context.data, context.app)
    return next()
  }

  const read = rules.read(access)
  if (method === 'find' || method === 'get') {
    context.params = { ...params, query: within(params.query, read) }
    return next()
  }

  const write = rules.write ? rules.write(access, method as WriteMethod) : read
  const writeScope = within({}, read, write)
  if (id !== null && id !== undefined) {
    // (cast: the adapters' internal _get is not part of the generic service type)
    const existing = await context.service._get(id, { query: within({}, read) })
    if (!matches(write, existing)) throw new Forbidden(`You may not ${method} this record`)
    context.params = { ...context.params, existing }
  }
  context.params = { ...context.params, query: within(params.query, writeScope), writeScope }
  await next()
}
