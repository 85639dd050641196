// Why: every external service call is observed once — the caller's account for the REST request log line, the
// Socket.IO call metrics, and the in-flight count of Socket.IO calls graceful shutdown waits for.
// What it records into (the in-flight count, the metrics) is the app's, handed down in its deps by ops/.
import type { HookContext, NextFunction } from '../declarations'
import { depsSlot } from '../deps'

const secondsSince = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9

export const observeCall = async (context: HookContext, next: NextFunction) => {
  const provider = context.params.provider
  if (!provider) return next()
  const socket = provider === 'socketio'
  const deps = depsSlot.require(context.app)
  const inFlight = socket ? deps.inFlight : undefined
  const started = process.hrtime.bigint()
  let status = 200
  inFlight?.begin()
  try {
    await next()
    if (context.method === 'create') status = 201
  } catch (error: unknown) {
    const code = (error as { code?: unknown } | null | undefined)?.code
    status = typeof code === 'number' ? code : 500
    throw error
  } finally {
    inFlight?.end()
    const account =
      context.params.account?.id ??
      (context.path === 'authentication' ? context.result?.account?.id : undefined)
    if (context.params.requestLog && typeof account === 'string') context.params.requestLog.account = account
    if (socket) deps.meters.observe('socketio', context.path, context.method, status, secondsSince(started))
  }
}
