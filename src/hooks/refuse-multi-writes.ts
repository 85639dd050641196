// Billing, inventory and order documents change one at a time: a PATCH or DELETE without an id is refused.
import { MethodNotAllowed } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'

export const oneAtATime = async (context: HookContext, next: NextFunction) => {
  if (context.id === null || context.id === undefined)
    throw new MethodNotAllowed(`${context.method} needs an id`)
  await next()
}
