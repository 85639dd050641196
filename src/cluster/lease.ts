// Work that must run on one instance at a time (start-up and periodic recovery passes): a lease in Redis, taken
// with SET NX PX (atomic on the server, so it needs no unique index), renewed while the work runs and released
// only by its holder. Without REDIS_URL there is one instance and the work simply runs.
import { randomBytes } from 'node:crypto'
import type { Application } from '../declarations'
import { logger } from '../logger'
import { redisKey, redisOf } from './redis'

// Extends the lease only while it is still ours; deletes it only while it is still ours.
const RENEW =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"

export type LeaseResult<T> = { ran: true; value: T } | { ran: false }

/**
 * Runs `task` while holding the lease `name`; when another instance holds it, does not run it. The lease lasts
 * `ttlMs` and is renewed every third of it while `task` runs, so a crashed holder frees it within `ttlMs`.
 */
export const withLease = async <T>(
  app: Application,
  name: string,
  ttlMs: number,
  task: () => Promise<T>
): Promise<LeaseResult<T>> => {
  const client = redisOf(app)
  if (!client) return { ran: true, value: await task() }
  const key = redisKey(app, `lease:${name}`)
  const token = randomBytes(12).toString('hex')
  const taken = await client.set(key, token, { condition: 'NX', expiration: { type: 'PX', value: ttlMs } })
  if (taken !== 'OK') return { ran: false }
  const renew = setInterval(
    () => {
      client
        .eval(RENEW, { keys: [key], arguments: [token, String(ttlMs)] })
        .catch((error: Error) => logger.warn(`Lease ${name} not renewed:`, error?.message))
    },
    Math.max(10, Math.floor(ttlMs / 3))
  )
  renew.unref()
  try {
    return { ran: true, value: await task() }
  } finally {
    clearInterval(renew)
    await client
      .eval(RELEASE, { keys: [key], arguments: [token] })
      .catch((error: Error) => logger.warn(`Lease ${name} not released:`, error?.message))
  }
}

/**
 * Runs `task` while holding the lease `name`, waiting (up to `waitMs`) while another instance holds it: for start-up
 * steps every instance must see done before serving (e.g. the admin bootstrap), run one instance at a time.
 */
export const withLeaseWaiting = async <T>(
  app: Application,
  name: string,
  ttlMs: number,
  task: () => Promise<T>,
  waitMs = 60_000
): Promise<T> => {
  const end = Date.now() + waitMs
  for (;;) {
    const result = await withLease(app, name, ttlMs, task)
    if (result.ran) return result.value
    if (Date.now() > end) throw new Error(`Lease ${name} still held by another instance after ${waitMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * Claims the current period of a periodic task (`name`) for this instance: the first instance to ask gets it, and
 * nobody else until `periodMs` has passed (the claim is a Redis key that expires, never released early), so a task
 * every instance schedules runs once per period across them all. Without REDIS_URL there is one instance: always true.
 */
export const claimPeriod = async (app: Application, name: string, periodMs: number): Promise<boolean> => {
  const client = redisOf(app)
  if (!client) return true
  const taken = await client.set(redisKey(app, `period:${name}`), randomBytes(6).toString('hex'), {
    condition: 'NX',
    expiration: { type: 'PX', value: Math.max(1, Math.floor(periodMs)) }
  })
  return taken === 'OK'
}
