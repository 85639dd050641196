// Every REST request, observed once (Socket.IO calls: src/hooks/observe-call.ts): its request id (the client's X-Request-Id when it is a
// short token, else a new UUID, echoed in the response header), one structured log line (reqId, method, path,
// statusCode, responseTime in ms, account id — never headers, bodies or query values), the request metrics, and
// the in-flight count graceful shutdown waits for. Client aborts are one debug line, not a stack.
import { randomUUID } from 'node:crypto'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application, RequestLog } from '../declarations'
import { logger } from '../logger'
import { appSlot } from '../runtime'
import { lifecycleOf } from './lifecycle'
import { metricsOf } from './metrics'

export const requestIdPattern = /^[A-Za-z0-9._:-]{1,100}$/

export const seconds = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9

// The app's service objects to their paths, rebuilt when a service is registered later.
const servicePathsSlot = appSlot<WeakMap<object, string>>('service paths')
const pathOf = (app: Application, service: unknown): string | undefined => {
  if (!service || typeof service !== 'object') return undefined
  const servicePaths = servicePathsSlot.ensure(app, () => new WeakMap())
  let found = servicePaths.get(service)
  if (found === undefined) {
    for (const [path, registered] of Object.entries(app.services))
      servicePaths.set(registered as object, path)
    found = servicePaths.get(service)
  }
  return found
}

// The path as logged: at most 300 characters, and never a credential that can sit in a path — an access token
// (DELETE /authentication/<token>, or a JWT-shaped segment) or a sandbox checkout session (a bearer link).
const jwtSegment = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/
export const loggedPath = (path: string) => {
  const segments = path
    .split('/')
    .map((segment, index, all) =>
      (index === 2 && all[1] === 'authentication') ||
      jwtSegment.test(segment) ||
      segment.startsWith('cs_sandbox_')
        ? '[redacted]'
        : segment
    )
  const joined = segments.join('/')
  return joined.length > 300 ? `${joined.slice(0, 300)}…` : joined
}

// Client aborts (the connection closed before the response was written) are not server errors.
const clientAbortCodes = new Set([
  'ERR_STREAM_PREMATURE_CLOSE',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_DESTROYED'
])
const codeOf = (error: unknown): unknown =>
  error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined
export const isClientAbort = (error: unknown) => {
  const code = codeOf(error)
  return typeof code === 'string' && clientAbortCodes.has(code)
}

/** Koa middleware, first in the chain. */
export const observeRequests =
  (app: Application) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    const started = process.hrtime.bigint()
    const state = lifecycleOf(app)
    const given = ctx.get('x-request-id')
    const reqId = requestIdPattern.test(given) ? given : randomUUID()
    ctx.state.requestId = reqId
    ctx.set('X-Request-Id', reqId)
    const log: RequestLog = {}
    ctx.feathers = { ...ctx.feathers, requestLog: log }
    state?.begin()
    try {
      await next()
    } finally {
      state?.end()
      // While shutting down, a keep-alive connection is not kept for another request.
      if (state && state.phase !== 'ready' && state.phase !== 'starting') ctx.set('Connection', 'close')
      const elapsed = seconds(started)
      // (cast: ctx.lookup is set by @feathersjs/koa's rest middleware, untyped)
      const service = pathOf(app, (ctx as { lookup?: { service?: unknown } }).lookup?.service)
      metricsOf(app)?.observe('rest', service ?? '', ctx.method, ctx.status, elapsed)
      const fields: Record<string, unknown> = {
        reqId,
        method: ctx.method,
        path: loggedPath(ctx.path),
        statusCode: ctx.status,
        responseTime: Math.round(elapsed * 1e4) / 10
      }
      if (log.account) fields.account = log.account
      // Probes and scrapes come every few seconds: their successes are debug lines.
      const routine = ctx.status < 400 && (ctx.path.startsWith('/health/') || ctx.path === '/metrics')
      logger.log(routine ? 'debug' : 'info', fields, `${ctx.method} ${fields.path} ${ctx.status}`)
    }
  }

/** Koa's 'error' event (errors after the response started, e.g. a client abort while a file streams). */
export const logStreamErrors = (app: Application) => {
  app.on('error', (error: unknown, ctx?: FeathersKoaContext) => {
    const reqId = ctx?.state?.requestId
    if (isClientAbort(error)) {
      logger.log(
        'debug',
        { reqId, method: ctx?.method, path: ctx && loggedPath(ctx.path), errorCode: codeOf(error) },
        'client closed the connection before the response was sent'
      )
      return
    }
    logger.log(
      'error',
      { reqId, method: ctx?.method, path: ctx && loggedPath(ctx.path), err: error },
      'response failed'
    )
  })
}
