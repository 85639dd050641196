// Probes: GET /health/live (the process answers) and GET /health/ready (the store answers, every index is
// built, start-up recovery finished, and the server is not shutting down; 503 otherwise). Its `checks` also say
// whether payments take real money (`payments`: `live` or `sandbox`).
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application } from '../declarations'
import { storeHealth } from '../store'
import { lifecycleOf } from './lifecycle'
import { paymentsMode } from '../providers/payments-mode'

export const healthPaths = ['/health/live', '/health/ready'] as const

export const healthEndpoints =
  (app: Application) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    if (
      !(healthPaths as readonly string[]).includes(ctx.path) ||
      (ctx.method !== 'GET' && ctx.method !== 'HEAD')
    )
      return next()
    ctx.set('Cache-Control', 'no-store')
    if (ctx.path === '/health/live') {
      ctx.body = { status: 'ok' }
      return
    }
    const state = lifecycleOf(app)
    const store = await storeHealth(app)
    const checks = {
      store: store.reachable ? 'ok' : 'unreachable',
      indexes: store.indexes ? 'ok' : 'building',
      recovery: state.setupDone ? 'ok' : 'running',
      phase: state.phase,
      // Not a condition of readiness: whether payments take real money (`sandbox`: they do not).
      payments: paymentsMode({ processor: app.get('processor'), gateways: app.get('gateways') })
    }
    const ready = state.phase === 'ready' && store.reachable && store.indexes && state.setupDone
    ctx.status = ready ? 200 : 503
    ctx.body = { status: ready ? 'ready' : state.phase === 'ready' ? 'unavailable' : state.phase, checks }
  }
