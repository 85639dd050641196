// Notices between instances that are not service events (REDIS_URL): e.g. "this account's sessions ended", so every
// instance cuts that account's open sockets, not only the one that handled the change. One subscriber connection
// per instance on `<REDIS_PREFIX>:notice:*`; a notice is handled by every instance except the one that sent it.
// Without REDIS_URL there is one instance and nothing is sent.
import type { Application } from '../declarations'
import { logger } from '../logger'
import { instanceIdOf } from './events'
import {
  logRedisErrors,
  redisKey,
  redisOf,
  redisStartupError,
  stopRedisClient,
  type RedisClient
} from './redis'
import { appSlot } from '../runtime'

// A notice's payload is JSON another instance sent: a handler states the shape it expects and checks what it
// reads (the fields of its type are optional, since a notice may come from an older or newer instance).
type Handler<T = unknown> = (payload: T) => void

export interface NoticeState {
  handlers: Map<string, Handler[]>
  subscriber?: RedisClient
  ready?: Promise<unknown>
}

const noticesSlot = appSlot<NoticeState>('notices')
const stateOf = (app: Application): NoticeState => noticesSlot.ensure(app, () => ({ handlers: new Map() }))

/** Handles notices of `topic` sent by other instances. */
export const onNotice = <T>(app: Application, topic: string, handler: Handler<T>) => {
  const { handlers } = stateOf(app)
  handlers.set(topic, [...(handlers.get(topic) ?? []), handler as Handler]) // (cast: the payload is parsed JSON)
}

/** Sends a notice to every other instance (no-op without REDIS_URL). */
export const sendNotice = async (app: Application, topic: string, payload: unknown) => {
  const client = redisOf(app)
  if (!client) return
  await client.publish(
    redisKey(app, `notice:${topic}`),
    JSON.stringify({ origin: instanceIdOf(app), payload })
  )
}

/** Subscribes to other instances' notices (after `redis` and `sharedEvents` are configured). */
export const notices = (app: Application) => {
  const client = redisOf(app)
  if (!client) return
  const state = stateOf(app)
  const subscriber = client.duplicate()
  logRedisErrors(subscriber)
  const prefix = redisKey(app, 'notice:')
  state.subscriber = subscriber
  state.ready = subscriber.connect().then(() =>
    subscriber.pSubscribe(`${prefix}*`, (message: string, channel: string) => {
      try {
        const { origin, payload } = JSON.parse(message) as { origin?: unknown; payload?: unknown }
        if (origin === instanceIdOf(app)) return
        for (const handler of state.handlers.get(channel.slice(prefix.length)) ?? []) handler(payload)
      } catch (error: unknown) {
        logger.error(`Notice on ${channel} failed:`, error instanceof Error ? error.message : error)
      }
    })
  )
  // (start-up reports a failure once, through noticesReady)
  state.ready.catch(() => undefined)
}

export const noticesReady = async (app: Application) => {
  await stateOf(app).ready?.catch((error) => {
    throw redisStartupError(app.get('redis'), error)
  })
}

export const closeNotices = async (app: Application) => {
  const subscriber = stateOf(app).subscriber
  if (subscriber) await stopRedisClient(subscriber)
}
