// Exists so that a facility's subscription has its say on every service holding facility data (the table of those
// services and of what each status allows is src/subscriptions/enforce.ts). Registered on each such service right
// after scopeAccess: the caller's rights are checked first (a document they may not see stays a 404, not a 402),
// and a write is judged on the document as scopeAccess loaded it.
import type { HookContext, NextFunction } from '../declarations'
import { depsSlot } from '../deps'
import { enforceSubscription, enforceSubscriptionOnFind, type EnforcedCall } from '../subscriptions/enforce'

export const requireSubscription = async (context: HookContext, next: NextFunction) => {
  if (!context.params.provider) return next()
  const deps = depsSlot.require(context.app)
  const call: EnforcedCall = {
    path: context.path,
    method: context.method,
    provider: context.params.provider,
    query: context.params.query
  }
  switch (context.method) {
    case 'create':
      await enforceSubscription(deps, call, context.data)
      return next()
    case 'find':
      await enforceSubscriptionOnFind(deps, call)
      return next()
    case 'get':
      await next()
      await enforceSubscription(deps, call, context.result)
      return
    default:
      if (context.params.existing) await enforceSubscription(deps, call, context.params.existing)
      return next()
  }
}
