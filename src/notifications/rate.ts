// The per-facility send rate (`notifications.ratePerMinute`): a message over the rate is not dropped, it waits
// (the worker moves its `nextAttemptAt` to the next minute). Counted per facility and minute of the app's clock (a
// fixed window, so the sandbox clock moves it too). With REDIS_URL the counter lives in Redis (`INCR`, expiring after
// two minutes), shared by every instance, so the rate holds across all of them; should Redis be unreachable each
// instance counts in its own memory meanwhile. Without Redis there is one instance and the counter is in its memory.
import type { RedisClient } from '../cluster/redis'
import type { Logger } from '../logger'

const MINUTE = 60_000

export interface RateGate {
  /** Takes one send of `facility` at `now` at the rate `perMinute`: 0 when it may go now, else how long (ms) it waits. */
  take(facility: string, perMinute: number, now: number): Promise<number>
}

export const createRateGate = (
  redis?: { client: RedisClient; keyPrefix: string },
  logger?: Pick<Logger, 'warn'>
): RateGate => {
  const counts = new Map<string, number>()
  let window = -1
  const countHere = (key: string, current: number) => {
    if (current !== window) {
      // A new minute: the earlier minutes' counts are done with.
      counts.clear()
      window = current
    }
    const count = (counts.get(key) ?? 0) + 1
    counts.set(key, count)
    return count
  }
  const countShared = async (key: string, current: number) => {
    if (!redis) return countHere(key, current)
    try {
      const name = `${redis.keyPrefix}:${key}:${current}`
      const [count] = await redis.client
        .multi()
        .incr(name)
        .pExpire(name, 2 * MINUTE)
        .exec()
      return Number(count)
    } catch (error) {
      logger?.warn(
        'Notification rate counted in this process (Redis unavailable):',
        error instanceof Error ? error.message : String(error)
      )
      return countHere(key, current)
    }
  }
  return {
    async take(facility, perMinute, now) {
      const current = Math.floor(now / MINUTE)
      const count = await countShared(facility, current)
      return count <= perMinute ? 0 : Math.max(1, (current + 1) * MINUTE - now)
    }
  }
}
