// Redis, the shared bus of several instances (REDIS_URL): one client per app for rate limits and leases, opened
// at configure time (commands wait for the connection) and closed on teardown. Without REDIS_URL nothing here runs
// and everything stays in process. Keys and the event channel are prefixed with REDIS_PREFIX, so deployments (or
// test runs) can share one Redis.
import { createClient } from 'redis'
import type { Application } from '../declarations'
import { logger } from '../logger'
import { runtimeOf } from '../runtime'

export type RedisClient = ReturnType<typeof createClient>

export interface RedisState {
  client: RedisClient
  prefix: string
  connected: Promise<unknown>
}

const stateOf = (app: Application): RedisState | undefined => runtimeOf(app).redis

/** The app's Redis client, or undefined when REDIS_URL is not set. */
export const redisOf = (app: Application): RedisClient | undefined => stateOf(app)?.client

/** `<REDIS_PREFIX>:<name>`: every key and channel this app uses in Redis. */
export const redisKey = (app: Application, name: string) => `${app.get('redisPrefix')}:${name}`

/** A new, unconnected client for REDIS_URL, with its errors logged (never an unhandled 'error' event). */
export const newRedisClient = (url: string) => {
  const client = createClient({ url })
  client.on('error', (error: Error) => logger.error('Redis error:', error?.message ?? error))
  return client
}

/** Opens the Redis client when REDIS_URL is set; warns when MONGODB_URL is set without it. */
export const redis = (app: Application) => {
  const url = app.get('redis')
  if (!url) {
    if (app.get('mongodb')) {
      logger.warn('MONGODB_URL is set without REDIS_URL: rate limits, realtime events and caches stay per process, so run one instance only (several instances need both).')
    }
    return
  }
  const client = newRedisClient(url)
  const connected = client.connect()
  connected.catch((error: Error) => logger.error('Redis connection failed:', error?.message ?? error))
  runtimeOf(app).redis = { client, prefix: app.get('redisPrefix'), connected }
}

/** Resolves once the Redis client is connected (at once without REDIS_URL). */
export const redisReady = async (app: Application) => {
  await stateOf(app)?.connected
}

/** Closes the Redis client (pending commands are answered first). */
export const closeRedis = async (app: Application) => {
  const client = redisOf(app)
  if (client?.isOpen) await client.close().catch(() => client.destroy())
}
