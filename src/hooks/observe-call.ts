// Why: every external service call is observed once — the caller's account for the REST request log line, the
// Socket.IO call metrics, and the in-flight count of Socket.IO calls graceful shutdown waits for.
import type { HookContext, NextFunction } from '../declarations'
import { lifecycleOf } from '../ops/lifecycle'
import { metricsOf } from '../ops/metrics'
import { seconds } from '../ops/observe'

export const observeCall = async (context: HookContext, next: NextFunction) => {
  const provider = context.params.provider
  if (!provider) return next()
  const socket = provider === 'socketio'
  const state = socket ? lifecycleOf(context.app) : undefined
  const started = process.hrtime.bigint()
  let status = 200
  state?.begin()
  try {
    await next()
    if (context.method === 'create') status = 201
  } catch (error: any) {
    status = typeof error?.code === 'number' ? error.code : 500
    throw error
  } finally {
    state?.end()
    const account =
      context.params.account?.id ??
      (context.path === 'authentication' ? context.result?.account?.id : undefined)
    if (context.params.requestLog && typeof account === 'string') context.params.requestLog.account = account
    if (socket)
      metricsOf(context.app)?.observe('socketio', context.path, context.method, status, seconds(started))
  }
}
