// Server-owned creation fields: set from the app's one clock (the one every time-driven rule reads, so a sandbox
// clock moved forward stamps new documents with its time too) and the authenticated account, never from the body.
import type { HookContext, NextFunction } from '../declarations'
import { depsSlot } from '../deps'

/** The fields setCreated adds to every create body: what a service's `create` receives besides its data schema. */
export interface CreatedFields {
  createdAt: number
  createdBy: string | null
}

export const setCreated = async (context: HookContext, next: NextFunction) => {
  if (context.method === 'create' && context.data && typeof context.data === 'object') {
    const createdAt = depsSlot.require(context.app).clock.now()
    context.data = { ...context.data, createdAt, createdBy: context.params.account?.id ?? null }
  }
  await next()
}
