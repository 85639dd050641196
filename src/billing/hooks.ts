// Hooks shared by the billing services.
import { MethodNotAllowed } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'
import { accessOf } from '../hooks/scope-access'
import { requireMember } from './access'

// Billing documents change one at a time: a PATCH or DELETE without an id is refused.
export const oneAtATime = async (context: HookContext, next: NextFunction) => {
  if (context.id === null || context.id === undefined) throw new MethodNotAllowed(`${context.method} needs an id`)
  await next()
}

// A document can only be created in a facility the caller belongs to (any other facility is a 404).
export const requireFacilityMember = async (context: HookContext, next: NextFunction) => {
  if (context.params.provider) requireMember(await accessOf(context), context.data.facility)
  await next()
}

/** The acting account id (null for internal calls). */
export const actorOf = (context: HookContext): string | null => context.params.account?.id ?? null
