// Logs unexpected (non-Feathers or 5xx) errors once, and keeps stacks out of production responses.
import { GeneralError, type FeathersError } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'
import { logger } from '../logger'

export const logError = async (context: HookContext, next: NextFunction) => {
  try {
    await next()
  } catch (caught: unknown) {
    // A Feathers error names its class; whatever else was thrown is unexpected.
    const error = caught as Partial<FeathersError> | null | undefined
    const code = typeof error?.code === 'number' ? error.code : 500
    if (!error?.className) {
      logger.error(`${context.path}.${context.method} failed:`, caught)
      throw new GeneralError(
        process.env.NODE_ENV === 'production' ? 'Internal error' : (error?.message ?? 'Internal error')
      )
    }
    // Known server-side failures (a provider down, 502) are logged as one line; client errors are not logged.
    if (code >= 500) logger.warn(`${context.path}.${context.method} failed: ${error.name}: ${error.message}`)
    if (process.env.NODE_ENV === 'production' && error) delete error.stack
    throw error
  }
}
