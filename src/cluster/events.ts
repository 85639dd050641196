// Service events shared between instances (REDIS_URL): feathers-sync with its Redis adapter, the mechanism
// Feathers documents for scaling. Every service event (standard and custom) is published to Redis instead of
// being emitted at once; every instance, the writer included, emits it locally when it comes back, so each
// instance's channels (src/channels.ts) publish it to its own permitted connections and its listeners (membership
// refreshes, the directory's rebuilds, caches) see every instance's changes. What travels: the event, the service
// path, the data (the stored document, as local listeners and the channels' read rules see it), its external view
// (what sockets receive) and a few context fields — never params (accounts, tokens, sockets). Redis is therefore as
// trusted as the database: keep it on a private network, with AUTH/TLS in the URL (rediss://user:pass@host).
import { randomBytes } from 'node:crypto'
import { redis as syncRedis } from 'feathers-sync'
import type { Application } from '../declarations'
import { newRedisClient, redisKey, redisStartupError, stopRedisClient } from './redis'
import { appSlot } from '../runtime'

/** The context a synced event carries: `origin` is the instance that made the change. */
export interface SyncedContext {
  path: string
  method?: string
  type?: string
  id?: string | number | null
  event: string
  origin: string
}

interface SyncState {
  ready: Promise<unknown>
  pub: { close(): Promise<void>; destroy(): void; isOpen: boolean; isReady: boolean }
  sub: { close(): Promise<void>; destroy(): void; isOpen: boolean; isReady: boolean }
}

/** This app instance's id (set when events are shared), as carried in `origin`. */
const instanceSlot = appSlot<string>('instance id')
export const instanceIdOf = (app: Application): string | undefined => instanceSlot.get(app)

/** True for an event that reached this instance from another one (false for local and unshared events). */
export const fromOtherInstance = (app: Application, context: unknown) => {
  const origin = (context as Partial<SyncedContext> | undefined)?.origin
  return typeof origin === 'string' && origin !== instanceIdOf(app)
}

/** What feathers-sync hands over of the hook context of an emitted event. */
interface EmittedContext {
  method?: string
  type?: string
  id?: string | number | null
  result?: unknown
  dispatch?: unknown
}

// The external view (`context.dispatch`, what sockets receive) of one emitted document: the call's dispatch, or its
// element matching `data` when a multi call emits one event per document.
const dispatchOf = (context: EmittedContext | undefined, data: unknown) => {
  const dispatch = context?.dispatch
  const result = context?.result
  if (dispatch === undefined) return undefined
  if (Array.isArray(dispatch) && Array.isArray(result) && !Array.isArray(data)) {
    const index = result.indexOf(data)
    return index >= 0 ? dispatch[index] : undefined
  }
  return dispatch
}

/**
 * Shares service events through Redis when REDIS_URL is set. Configure it after the services whose events stay in
 * this process (authentication: a login's result carries its token) and before the shared ones.
 */
export const sharedEvents = (app: Application) => {
  const url = app.get('redis')
  if (!url) return
  const instance = randomBytes(8).toString('hex')
  instanceSlot.set(app, instance)
  app.configure(
    syncRedis({
      uri: url,
      key: redisKey(app, 'events'),
      redisClient: newRedisClient(url),
      serialize: ({
        event,
        path,
        data,
        context
      }: {
        event: string
        path: string
        data: unknown
        context?: EmittedContext
      }) => {
        const synced: SyncedContext = {
          path,
          method: context?.method,
          type: context?.type,
          id: context?.id ?? null,
          event,
          origin: instance
        }
        return JSON.stringify({ event, path, data, dispatch: dispatchOf(context, data), context: synced })
      },
      deserialize: (raw: string) => {
        const { event, path, data, dispatch, context } = JSON.parse(raw)
        // What the socket transport sends to each connection and what channels match against: the external view
        // when there is one (as `app.publish` sees it in the emitting instance), else the data.
        return {
          event,
          path,
          data: dispatch ?? data,
          context: { ...context, result: data, ...(dispatch === undefined ? {} : { dispatch }) }
        }
      }
    }) as (app: Application) => void // (cast: feathers-sync types its configure function for the plain Feathers app, not the Koa-typed one)
  )
  // (start-up reports a failure once, through sharedEventsReady)
  syncOf(app)?.ready.catch(() => undefined)
}

const syncOf = (app: Application): SyncState | undefined => (app as unknown as { sync?: SyncState }).sync

/** Resolves once the event bus is subscribed (at once without REDIS_URL). */
export const sharedEventsReady = async (app: Application) => {
  await syncOf(app)?.ready.catch((error) => {
    throw redisStartupError(app.get('redis'), error)
  })
}

/** Closes the event bus's two connections. */
export const closeSharedEvents = async (app: Application) => {
  const sync = syncOf(app)
  if (!sync) return
  for (const client of [sync.sub, sync.pub]) await stopRedisClient(client)
}
