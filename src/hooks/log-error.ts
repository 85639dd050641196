// Logs unexpected (non-Feathers or 5xx) errors once, and keeps stacks out of production responses.
import { GeneralError } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'
import { logger } from '../logger'

export const logError = async (context: HookContext, next: NextFunction) => {
  try {
    await next()
  } catch (error: any) {
    const code = typeof error?.code === 'number' ? error.code : 500
    if (!error?.className || code >= 500) {
      logger.error(`${context.path}.${context.method} failed:`, error)
      if (!error?.className) throw new GeneralError(process.env.NODE_ENV === 'production' ? 'Internal error' : error?.message ?? 'Internal error')
    }
    if (process.env.NODE_ENV === 'production' && error) delete error.stack
    throw error
  }
}
