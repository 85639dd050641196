// Hooks shared by the billing services.
import { MethodNotAllowed } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'
import { accessOf } from '../hooks/scope-access'
import type { Query } from '@feathersjs/feathers'
import { within } from '../access/rules'
import { billingScope, requireBilling } from './access'
import { billingSettings } from './settings'

// Billing documents change one at a time: a PATCH or DELETE without an id is refused.
export const oneAtATime = async (context: HookContext, next: NextFunction) => {
  if (context.id === null || context.id === undefined)
    throw new MethodNotAllowed(`${context.method} needs an id`)
  await next()
}

/**
 * Finalizing needs the billing privilege (or superadmin) in the document's facility: checked on the loaded
 * document (403), and returned as the store scope of the finalizing write (the call's write scope narrowed to
 * the facilities where the caller may bill). Internal calls have no scope.
 */
export const finalizeScope = async (
  context: Pick<HookContext, 'app' | 'params'>,
  existing: { facility: string },
  action: string
): Promise<Query | undefined> => {
  if (!context.params.provider) return undefined
  const access = await accessOf(context)
  const privilege = billingSettings(context.app).privilege
  requireBilling(access, existing.facility, privilege, action)
  return within({}, context.params.writeScope, billingScope(access, privilege))
}

/** The acting account id (null for internal calls). */
export const actorOf = (context: Pick<HookContext, 'params'>): string | null =>
  context.params.account?.id ?? null
