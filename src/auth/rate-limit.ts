// Abuse limits for logins, password checks, action codes and outgoing messages (rate-limiter-flexible).
// The counters live in this process's memory: with several app instances each one counts on its own, so
// the effective limit is N times the configured one. A multi-instance deployment that needs exact limits
// swaps RateLimiterMemory for a shared store (RateLimiterMongo or RateLimiterRedis) here.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible'
import { TooManyRequests } from '@feathersjs/errors'
import type { AuthSettings, LimitSettings } from './settings'

const tooMany = (what: string, res: RateLimiterRes | null, durationSeconds: number) => {
  const retryAfterSeconds = Math.max(1, Math.ceil((res?.msBeforeNext ?? durationSeconds * 1000) / 1000))
  return new TooManyRequests(`Too many ${what}; try again in ${retryAfterSeconds} seconds`, { retryAfterSeconds })
}

/** One counter family: `points` per key within `durationSeconds`. */
export class Limit {
  private readonly limiter: RateLimiterMemory

  constructor(
    private readonly what: string,
    private readonly settings: LimitSettings
  ) {
    this.limiter = new RateLimiterMemory({ points: settings.points, duration: settings.durationSeconds })
  }

  /** Refuses (429) when the key has used up its points, without using one. */
  async check(key: string | undefined) {
    if (!key) return
    const res = await this.limiter.get(key)
    if (res && res.consumedPoints >= this.settings.points) throw tooMany(this.what, res, this.settings.durationSeconds)
  }

  /** Uses one point; refuses (429) once the key is past its points. */
  async consume(key: string | undefined) {
    if (!key) return
    try {
      await this.limiter.consume(key)
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw tooMany(this.what, rejection, this.settings.durationSeconds)
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

export const createAuthLimits = (settings: AuthSettings['rateLimits']): AuthLimits => ({
  failedLoginsPerEmail: new Limit('failed login attempts for this account', settings.failedLoginsPerEmail),
  loginsPerIp: new Limit('login attempts from this address', settings.loginsPerIp),
  failedActionCodesPerAccount: new Limit('wrong action codes for this account', settings.failedActionCodesPerAccount),
  actionCodesPerIp: new Limit('action code attempts from this address', settings.actionCodesPerIp),
  messagesPerAccount: new Limit('confirmation messages for this account', settings.messagesPerAccount)
})
