// Server-owned creation fields: set from the clock and the authenticated account, never from the body.
import type { HookContext, NextFunction } from '../declarations'

/** The fields setCreated adds to every create body: what a service's `create` receives besides its data schema. */
export interface CreatedFields {
  createdAt: number
  createdBy: string | null
}

export const setCreated = async (context: HookContext, next: NextFunction) => {
  if (context.method === 'create' && context.data && typeof context.data === 'object') {
    context.data = { ...context.data, createdAt: Date.now(), createdBy: context.params.account?.id ?? null }
  }
  await next()
}
