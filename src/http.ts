// Transport-level Koa middleware: Feathers-shaped JSON errors for everything (bad JSON, oversized bodies,
// wrong Content-Type, unknown paths), never a stack trace or an HTML page.
import { FeathersError, GeneralError, NotFound, BadRequest } from '@feathersjs/errors'
import type { FeathersKoaContext } from '@feathersjs/koa'
import { logger } from './logger'

export class UnsupportedMediaType extends FeathersError {
  constructor(message: string) {
    super(message, 'UnsupportedMediaType', 415, 'unsupported-media-type', undefined)
  }
}
export class PayloadTooLarge extends FeathersError {
  constructor(message: string) {
    super(message, 'PayloadTooLarge', 413, 'payload-too-large', undefined)
  }
}

const toFeathersError = (error: any): FeathersError => {
  if (error instanceof FeathersError) return error
  const status = error?.status ?? error?.statusCode
  if (status === 413 || error?.type === 'entity.too.large') return new PayloadTooLarge('The request body is larger than the limit')
  if (status === 415) return new UnsupportedMediaType('Send the body as application/json')
  if (/prototype/i.test(error?.message ?? '')) return new BadRequest('The request body contains a forbidden key (__proto__ or constructor.prototype)')
  if (status === 400 || error instanceof SyntaxError) return new BadRequest('The request body is not valid JSON')
  logger.error('Unhandled request error:', error)
  return new GeneralError(process.env.NODE_ENV === 'production' ? 'Internal error' : (error?.message ?? 'Internal error'))
}

export const errorHandler = () => async (ctx: FeathersKoaContext, next: () => Promise<any>) => {
  try {
    await next()
    if (ctx.body === undefined) throw new NotFound(`Path ${ctx.path} not found`)
  } catch (caught: any) {
    const error = toFeathersError(caught)
    ctx.response.status = error.code
    const body: any = error.toJSON()
    delete body.stack
    ctx.body = body
  }
}

// Bodies of POST/PUT/PATCH must be JSON.
export const requireJson = () => async (ctx: FeathersKoaContext, next: () => Promise<any>) => {
  const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== ''
  if (['POST', 'PUT', 'PATCH'].includes(ctx.method) && hasBody && !ctx.is('application/json', 'application/*+json')) {
    throw new UnsupportedMediaType('Send the body as application/json')
  }
  await next()
}
