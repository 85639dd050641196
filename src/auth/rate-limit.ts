// Abuse limits for logins, password checks, action codes and outgoing messages (rate-limiter-flexible).
// Without REDIS_URL the counters live in this process's memory. With REDIS_URL they live in Redis
// (RateLimiterRedis), shared by every instance, so a limit holds across all of them; should Redis be unreachable,
// each instance falls back to counting in its own memory (the insurance limiter) rather than failing logins.
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract
} from 'rate-limiter-flexible'
import type { RedisClient } from '../cluster/redis'
import { TooManyRequests } from '@feathersjs/errors'
import type { AuthSettings, LimitSettings } from './settings'

const tooMany = (what: string, res: RateLimiterRes | null, durationMs: number) => {
  const retryAfterSeconds = Math.max(1, Math.ceil((res?.msBeforeNext ?? durationMs) / 1000))
  return new TooManyRequests(`Too many ${what}; try again in ${retryAfterSeconds} seconds`, {
    retryAfterSeconds
  })
}

/** One counter family: `points` per key within `durationMs` (rate-limiter-flexible counts in seconds). */
export class Limit {
  private readonly limiter: RateLimiterAbstract

  constructor(
    private readonly what: string,
    private readonly settings: LimitSettings,
    shared?: { client: RedisClient; keyPrefix: string }
  ) {
    const memory = new RateLimiterMemory({ points: settings.points, duration: settings.durationMs / 1000 })
    this.limiter = shared
      ? new RateLimiterRedis({
          storeClient: shared.client,
          useRedisPackage: true,
          keyPrefix: shared.keyPrefix,
          points: settings.points,
          duration: settings.durationMs / 1000,
          insuranceLimiter: memory
        })
      : memory
  }

  /** Refuses (429) when the key has used up its points, without using one. */
  async check(key: string | undefined) {
    if (!key) return
    const res = await this.limiter.get(key)
    if (res && res.consumedPoints >= this.settings.points)
      throw tooMany(this.what, res, this.settings.durationMs)
  }

  /** Uses one point; refuses (429) once the key is past its points. */
  async consume(key: string | undefined) {
    if (!key) return
    try {
      await this.limiter.consume(key)
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw tooMany(this.what, rejection, this.settings.durationMs)
      throw rejection
    }
  }

  /** Records a failure (one point) without refusing the current call. */
  async record(key: string | undefined) {
    if (!key) return
    await this.limiter.consume(key).catch((rejection) => {
      if (!(rejection instanceof RateLimiterRes)) throw rejection
    })
  }

  async reset(key: string | undefined) {
    if (key) await this.limiter.delete(key)
  }
}

export interface AuthLimits {
  /** Failed password checks per account email (logins and the password-confirmed actions). */
  failedLoginsPerEmail: Limit
  /** Every password login or password-confirmed action per client IP. */
  loginsPerIp: Limit
  /** Failed action-code applications per account. */
  failedActionCodesPerAccount: Limit
  /** Every action-code application per client IP. */
  actionCodesPerIp: Limit
  /** Confirmation messages sent per account. */
  messagesPerAccount: Limit
}

/** The limits; with `redis` (REDIS_URL) their counters are shared by every instance under `<prefix>:limits:<name>`. */
export const createAuthLimits = (
  settings: AuthSettings['rateLimits'],
  redis?: { client: RedisClient; prefix: string }
): AuthLimits => {
  const shared = (name: string) =>
    redis ? { client: redis.client, keyPrefix: `${redis.prefix}:limits:${name}` } : undefined
  return {
    failedLoginsPerEmail: new Limit(
      'failed login attempts for this account',
      settings.failedLoginsPerEmail,
      shared('failedLoginsPerEmail')
    ),
    loginsPerIp: new Limit('login attempts from this address', settings.loginsPerIp, shared('loginsPerIp')),
    failedActionCodesPerAccount: new Limit(
      'wrong action codes for this account',
      settings.failedActionCodesPerAccount,
      shared('failedActionCodesPerAccount')
    ),
    actionCodesPerIp: new Limit(
      'action code attempts from this address',
      settings.actionCodesPerIp,
      shared('actionCodesPerIp')
    ),
    messagesPerAccount: new Limit(
      'confirmation messages for this account',
      settings.messagesPerAccount,
      shared('messagesPerAccount')
    )
  }
}
