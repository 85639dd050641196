// Redis, the shared bus of several instances (REDIS_URL): one client per app for rate limits and leases, opened
// at configure time (commands wait for the connection) and closed on teardown. Without REDIS_URL nothing here runs
// and everything stays in process. Keys and the event channel are prefixed with REDIS_PREFIX, so deployments (or
// test runs) can share one Redis.
import { createClient } from 'redis'
import type { Application } from '../declarations'
import { logger } from '../logger'
import { appSlot } from '../runtime'
import { StartupError, reasonOf, shownUrl } from '../startup-error'

export type RedisClient = ReturnType<typeof createClient>

export interface RedisState {
  client: RedisClient
  prefix: string
  connected: Promise<unknown>
}

const redisSlot = appSlot<RedisState>('Redis client')
const stateOf = (app: Application): RedisState | undefined => redisSlot.get(app)

/** The app's Redis client, or undefined when REDIS_URL is not set. */
export const redisOf = (app: Application): RedisClient | undefined => stateOf(app)?.client

/** `<REDIS_PREFIX>:<name>`: every key and channel this app uses in Redis. */
export const redisKey = (app: Application, name: string) => `${app.get('redisPrefix')}:${name}`

const leaveEmpty = 'or leave it empty to run one instance without Redis'

/** REDIS_URL checked before a client is made: a StartupError when it is not a redis:// or rediss:// URL. */
const checkRedisUrl = (url: string) => {
  let protocol: string
  try {
    protocol = new URL(url).protocol
  } catch {
    throw new StartupError(
      `REDIS_URL is not a URL; set it to redis://host:6379 (rediss:// for TLS), ${leaveEmpty}`
    )
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new StartupError(
      `REDIS_URL ${shownUrl(url)} is not a Redis URL (it starts with ${protocol}//); set it to redis://host:6379 (rediss:// for TLS), ${leaveEmpty}`
    )
  }
}

/**
 * Logs a client's errors once it has been connected; errors before its first connection are not logged: start-up
 * reports them (redisReady). (An 'error' listener is needed in every case: without one the errors would be thrown.)
 */
export const logRedisErrors = (client: RedisClient) => {
  let connectedOnce = false
  client.on('ready', () => (connectedOnce = true))
  client.on('error', (error: Error) => {
    if (connectedOnce) logger.error('Redis error:', error?.message ?? error)
  })
}

/** A new, unconnected client for REDIS_URL: a lost connection is retried without end (the client's back-off). */
export const newRedisClient = (url: string) => {
  const client = createClient({ url })
  logRedisErrors(client)
  return client
}

/** Stops a client: closed (pending commands answered first) when connected, else dropped with its retries. */
export const stopRedisClient = async (client: {
  isOpen: boolean
  isReady: boolean
  close(): Promise<unknown>
  destroy(): void
}) => {
  if (!client.isOpen) return
  if (client.isReady) await client.close().catch(() => client.destroy())
  else client.destroy()
}

/** The StartupError of a Redis connection that could not be opened at start-up. */
export const redisStartupError = (url: string, error: unknown) =>
  new StartupError(
    `Redis at REDIS_URL ${shownUrl(url)} could not be reached (${reasonOf(error)}); start Redis or set REDIS_URL to a server this host can reach, ${leaveEmpty}`,
    { cause: error }
  )

/** Opens the Redis client when REDIS_URL is set; warns when MONGODB_URL is set without it. */
export const redis = (app: Application) => {
  const url = app.get('redis')
  if (!url) {
    if (app.get('mongodb')) {
      logger.warn(
        'MONGODB_URL is set without REDIS_URL: rate limits, realtime events and caches stay per process, so run one instance only (several instances need both).'
      )
    }
    return
  }
  checkRedisUrl(url)
  const client = newRedisClient(url)
  // Start-up waits for the first connection and stops at the first error before it (reported once, by redisReady).
  const connected = new Promise<void>((resolve, reject) => {
    client.once('ready', resolve)
    client.once('error', reject)
  })
  connected.catch(() => undefined)
  client.connect().catch(() => undefined)
  redisSlot.set(app, { client, prefix: app.get('redisPrefix'), connected })
}

/** Resolves once the Redis client is connected (at once without REDIS_URL); a StartupError when it cannot be. */
export const redisReady = async (app: Application) => {
  const state = stateOf(app)
  if (!state) return
  await state.connected.catch((error) => {
    throw redisStartupError(app.get('redis'), error)
  })
}

/** Closes the Redis client (pending commands are answered first). */
export const closeRedis = async (app: Application) => {
  const client = redisOf(app)
  if (client) await stopRedisClient(client)
}
