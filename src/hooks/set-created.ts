// Server-owned creation fields: set from the clock and the authenticated account, never from the body.
import type { HookContext, NextFunction } from '../declarations'

export const setCreated = async (context: HookContext, next: NextFunction) => {
  if (context.method === 'create' && context.data && typeof context.data === 'object') {
    context.data = { ...context.data, createdAt: Date.now(), createdBy: context.params.account?.id ?? null }
  }
  await next()
}
