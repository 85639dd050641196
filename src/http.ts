// Transport-level Koa middleware: Feathers-shaped JSON errors for everything (bad JSON, oversized bodies,
// wrong Content-Type, unknown paths), never a stack trace or an HTML page; browser hardening headers on every answer.
import { FeathersError, GeneralError, NotFound, BadRequest, errors } from '@feathersjs/errors'
import { serveStatic, type FeathersKoaContext } from '@feathersjs/koa'
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

/** A client error (4xx) without a Feathers class of its own, e.g. 416. */
class ClientError extends FeathersError {
  constructor(message: string, code: number) {
    super(message, 'ClientError', code, 'client-error', undefined)
  }
}

// `errors` also maps each status code to its class (400 → BadRequest, ...).
const errorClassByCode = errors as unknown as Record<
  number,
  (new (message: string) => FeathersError) | undefined
>

/** What an error thrown by Koa, a body parser or a library may carry (each field is a guess: it can be anything). */
interface ThrownFields {
  status?: unknown
  statusCode?: unknown
  type?: unknown
  message?: unknown
  expose?: unknown
}
const fieldsOf = (error: unknown): ThrownFields =>
  error !== null && typeof error === 'object' ? (error as ThrownFields) : {}
const statusOf = (error: unknown): number | undefined => {
  const { status, statusCode } = fieldsOf(error)
  const given = status ?? statusCode
  return typeof given === 'number' ? given : undefined
}

export const toFeathersError = (error: unknown): FeathersError => {
  if (error instanceof FeathersError) return error
  const fields = fieldsOf(error)
  const status = statusOf(error)
  const message = typeof fields.message === 'string' ? fields.message : undefined
  if (status === 413 || fields.type === 'entity.too.large')
    return new PayloadTooLarge('The request body is larger than the limit')
  if (status === 415) return new UnsupportedMediaType('Send the body as application/json')
  if (/prototype/i.test(message ?? ''))
    return new BadRequest('The request body contains a forbidden key (__proto__ or constructor.prototype)')
  if (error instanceof SyntaxError || fields.type === 'entity.parse.failed')
    return new BadRequest('The request body is not valid JSON')
  // Other http-errors client errors (Koa's ctx.throw, body parsing) keep their 4xx; only exposed messages are shown.
  if (status !== undefined && Number.isInteger(status) && status >= 400 && status < 500) {
    const shown = fields.expose === true && message !== undefined ? message : 'Bad request'
    const Known = errorClassByCode[status]
    return Known ? new Known(shown) : new ClientError(shown, status)
  }
  logger.error('Unhandled request error:', error)
  return new GeneralError(
    process.env.NODE_ENV === 'production' ? 'Internal error' : (message ?? 'Internal error')
  )
}

export const errorHandler = () => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
  try {
    await next()
    if (ctx.body === undefined) throw new NotFound(`Path ${ctx.path} not found`)
  } catch (caught: unknown) {
    const error = toFeathersError(caught)
    ctx.response.status = error.code
    const { stack: _stack, ...body } = error.toJSON() as unknown as Record<string, unknown> // (cast: its JSON may carry a stack)
    ctx.body = body
  }
}

/**
 * The Content-Security-Policy of every answer: scripts, styles, fonts and connections (Socket.IO included) from
 * this origin only — no inline script or style, no eval, no plugin; images also as data: URLs (Swagger UI's
 * icons, the console's empty favicon); forms post to this origin only, plus `formActions` (origins a form's answer
 * redirects to: a checkout's return and cancel pages); no page of this server may be framed (clickjacking).
 */
export const contentSecurityPolicy = (formActions: readonly string[] = []) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    // The console previews a PDF in a frame of its bytes (a blob: URL made by this page's own script).
    "frame-src 'self' blob:",
    "base-uri 'none'",
    `form-action ${[...new Set(["'self'", ...formActions])].join(' ')}`,
    "frame-ancestors 'none'"
  ].join('; ')

/** Where a page keeps the origins its forms' answers redirect to (read by securityHeaders for form-action). */
interface FormActionState {
  formActions?: string[]
}

/**
 * Browser hardening for everything this server answers — the console and its assets, /docs, the checkout pages,
 * and the JSON API: the Content-Security-Policy above (a page widens form-action through
 * `ctx.state.formActions`), X-Frame-Options DENY (frame-ancestors for older browsers), nosniff (a JSON answer or
 * an upload is never run as a script or page), and no Referer (a checkout page's URL carries its secret).
 */
export const securityHeaders = () => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
  ctx.set('Content-Security-Policy', contentSecurityPolicy())
  ctx.set('X-Frame-Options', 'DENY')
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.set('Referrer-Policy', 'no-referrer')
  await next()
  const { formActions } = ctx.state as FormActionState
  if (formActions?.length) ctx.set('Content-Security-Policy', contentSecurityPolicy(formActions))
}

// Bodies of POST/PUT/PATCH must be JSON.
export const requireJson = () => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
  const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== ''
  if (
    ['POST', 'PUT', 'PATCH'].includes(ctx.method) &&
    hasBody &&
    !ctx.is('application/json', 'application/*+json')
  ) {
    throw new UnsupportedMediaType('Send the body as application/json')
  }
  await next()
}

/**
 * Static files from `root`. What koa-send refuses (`..` or `\\` traversal → 403, NUL bytes or undecodable
 * paths → 400) is a plain 404, as for every other unknown path: no error of the middleware after it is touched.
 * A request for a service path goes straight to the service (no file-system lookup on every API call).
 */
export const staticFiles = (root: string, app: { lookup(path: string): unknown }) => {
  const serve = serveStatic(root)
  return async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    if (
      (ctx.method !== 'GET' && ctx.method !== 'HEAD') ||
      (ctx.path.length > 1 && app.lookup(ctx.path) !== null)
    )
      return next()
    let downstream = false
    try {
      await serve(ctx, () => {
        downstream = true
        return next()
      })
    } catch (error: unknown) {
      const status = statusOf(error)
      if (
        !downstream &&
        !(error instanceof FeathersError) &&
        status !== undefined &&
        Number.isInteger(status) &&
        status >= 400 &&
        status < 500
      ) {
        throw new NotFound('Not found')
      }
      throw error
    }
  }
}

/**
 * Feathers' router keeps its route nodes in plain objects, so a path segment named like an Object.prototype
 * member (`valueOf`, `constructor`, `__proto__`) resolves to that function and the lookup throws (a 500 on REST
 * and Socket.IO alike). No service path or id is such a name: such paths are simply not found (404).
 */
export const guardRouteLookup = (app: { lookup(path: string): unknown }) => {
  const lookup = app.lookup.bind(app)
  app.lookup = (path: string) => {
    if (typeof path === 'string' && path.split('/').some((segment) => segment in Object.prototype))
      return null
    return lookup(path)
  }
}
