// The process's phases as operators see them — starting (store opening, indexes, start-up recovery), ready,
// stopping, stopped — and graceful shutdown. Readiness (/health/ready) follows the phase. On shutdown
// (app.teardown, which SIGTERM/SIGINT start in src/index.ts) the steps are:
//   1. phase `stopping`: readiness answers 503, keep-alive responses carry `Connection: close`;
//   2. the listener closes (no new connections) and idle keep-alive connections are closed;
//   3. REST requests and Socket.IO calls in flight finish, until the drain deadline;
//   4. Socket.IO clients are disconnected and remaining connections closed;
//   5. the jobs stop, last started first (src/ops/jobs.ts: crash recoveries, audit log, webhook worker — whose
//      attempts in flight finish within what is left of the grace period), then the store is flushed and closed.
// The whole sequence is bounded by `shutdown.graceMs` (SHUTDOWN_GRACE_MS, default 10 s).
import type { Server } from 'node:http'
import type { Application, HookContext, NextFunction } from '../declarations'
import type { InFlight } from '../deps'
import { logger } from '../logger'
import { appSlot } from '../runtime'

export type Phase = 'starting' | 'ready' | 'stopping' | 'stopped'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)).unref())

export class Lifecycle implements InFlight {
  phase: Phase = 'starting'
  /** Set once every setup hook finished (store, indexes, admin, start-up recovery, jobs). */
  setupDone = false
  /** Epoch ms by which shutdown must be complete (Infinity until it starts). */
  deadline = Infinity
  private inFlight = 0
  private idleWaiters: (() => void)[] = []

  constructor(readonly graceMs: number) {}

  /** Milliseconds left until the shutdown deadline (Infinity before shutdown starts). */
  remaining() {
    return Math.max(0, this.deadline - Date.now())
  }

  /** A REST request or Socket.IO call started (paired with end()). */
  begin() {
    this.inFlight++
  }

  end() {
    this.inFlight--
    if (this.inFlight <= 0) {
      this.inFlight = 0
      for (const resolve of this.idleWaiters.splice(0)) resolve()
    }
  }

  get active() {
    return this.inFlight
  }

  /** Resolves when nothing is in flight or at `until` (epoch ms), whichever comes first; true if idle. */
  async idle(until: number): Promise<boolean> {
    if (this.inFlight === 0) return true
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)))
    return Promise.race([idle, sleep(until - Date.now()).then(() => this.inFlight === 0)])
  }
}

const lifecycleSlot = appSlot<Lifecycle>('lifecycle')

/** The app's lifecycle (registered first thing in createApp). */
export const lifecycleOf = (app: Application): Lifecycle => lifecycleSlot.require(app)

// Of the grace period, this much is kept for the jobs and the store after requests drained.
const closeReserve = (graceMs: number) => Math.min(3000, Math.floor(graceMs * 0.3))

const closeListener = (app: Application): { server?: Server; closed: Promise<void> } => {
  const server = app.server as Server | undefined
  if (!server || !server.listening) return { closed: Promise.resolve() }
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  // @feathersjs/koa's teardown closes `app.server` once the teardown hooks ran; it is closed here, first.
  app.server = undefined as unknown as Server // (cast: the property is typed as always set)
  server.closeIdleConnections()
  return { server, closed }
}

/** Registers the lifecycle on the app (and returns it); call before every other setup/teardown hook so it wraps
 *  them all. */
export const lifecycle = (app: Application): Lifecycle => {
  const state = new Lifecycle(app.get('shutdown').graceMs)
  lifecycleSlot.set(app, state)
  app.hooks({
    setup: [
      async (_context: HookContext, next: NextFunction) => {
        await next()
        state.setupDone = true
        if (state.phase === 'starting') state.phase = 'ready'
      }
    ],
    teardown: [
      async (_context: HookContext, next: NextFunction) => {
        state.phase = 'stopping'
        state.deadline = Date.now() + state.graceMs
        const drainBy = state.deadline - closeReserve(state.graceMs)
        const { server, closed } = closeListener(app)
        const drained = await state.idle(drainBy)
        if (!drained)
          logger.warn(
            `Shutdown: ${state.active} request(s) still in flight after the drain period; closing their connections`
          )
        if (app.io) {
          app.io.disconnectSockets(true)
          app.io.engine?.close()
        }
        if (server) {
          server.closeIdleConnections()
          await Promise.race([closed, sleep(drainBy - Date.now())])
          server.closeAllConnections()
          await closed
        }
        await next()
        state.phase = 'stopped'
      }
    ]
  })
  return state
}
