// Exists so that a facility's subscription has its say on every service holding facility data (the table of those
// services and of what each status allows is src/subscriptions/enforce.ts). Registered on each such service right
// after scopeAccess: the caller's rights are checked first (a document they may not see stays a 404, not a 402),
// and a write is judged on the document as scopeAccess loaded it.
import type { HookContext, NextFunction } from '../declarations'
import { enforceSubscription, enforceSubscriptionOnFind } from '../subscriptions/enforce'

export const requireSubscription = async (context: HookContext, next: NextFunction) => {
  if (!context.params.provider) return next()
  switch (context.method) {
    case 'create':
      await enforceSubscription(context, context.data)
      return next()
    case 'find':
      await enforceSubscriptionOnFind(context)
      return next()
    case 'get':
      await next()
      await enforceSubscription(context, context.result)
      return
    default:
      if (context.params.existing) await enforceSubscription(context, context.params.existing)
      return next()
  }
}
