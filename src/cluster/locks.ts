// Named locks for check-then-write steps no single store operation can decide (e.g. "is this provider's time still
// free?" then "store the booking"): one holder per name at a time, in this process and, with REDIS_URL, across
// instances. In process a keyed mutex queues the callers of one name (first come, first served), so only one of
// them at a time asks Redis; across instances a Redis lease (SET NX PX, renewed while the task runs, released
// only by its holder, freed within its TTL when the holder crashes) is waited for. A caller that cannot have the
// lock within `waitMs` gets a 503 asking to try again, never a 500 and never a task run without the lock.
import { Unavailable } from '@feathersjs/errors'
import type { Application } from '../declarations'
import { withLease } from './lease'

export interface LockOptions {
  /** How long to wait for the lock before answering 503 (default 5 s). */
  waitMs?: number
}

export interface Locks {
  /** Runs `task` while holding the lock `name` here and (with REDIS_URL) on every instance. */
  exclusive<T>(name: string, task: () => Promise<T>, options?: LockOptions): Promise<T>
}

const DEFAULT_WAIT_MS = 5_000
// The Redis lease outlives a crashed holder by at most this; it is renewed while the task runs.
const LEASE_TTL_MS = 15_000
// Polling Redis while another instance holds the lease: short, with jitter, so two instances alternate fairly.
const POLL_MIN_MS = 5
const POLL_MAX_MS = 25

const busy = (waitMs: number) =>
  new Unavailable(
    `Another change of the same calendar is still in progress after ${waitMs} ms: try again in a moment`,
    { retryAfterSeconds: 1 }
  )

/** One holder per key; the others wait in arrival order, each giving up after its own wait. */
class KeyedMutex {
  private readonly queues = new Map<string, (() => void)[]>()

  /** Resolves with the release function once `key` is ours; rejects with `timeout()` after `waitMs`. */
  acquire(key: string, waitMs: number, timeout: () => Error): Promise<() => void> {
    let released = false
    const release = () => {
      if (released) return
      released = true
      const queue = this.queues.get(key)
      const next = queue?.shift()
      if (next) next()
      else this.queues.delete(key)
    }
    const queue = this.queues.get(key)
    if (!queue) {
      this.queues.set(key, [])
      return Promise.resolve(release)
    }
    return new Promise((resolve, reject) => {
      const waiter = () => {
        clearTimeout(timer)
        resolve(release)
      }
      const timer = setTimeout(() => {
        const index = queue.indexOf(waiter)
        if (index >= 0) queue.splice(index, 1)
        reject(timeout())
      }, waitMs)
      queue.push(waiter)
    })
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The app's locks: built once by the composition root (the mutex is this app's, never shared by module state). */
export const createLocks = (app: Application): Locks => {
  const mutex = new KeyedMutex()
  return {
    async exclusive(name, task, options = {}) {
      const waitMs = options.waitMs ?? DEFAULT_WAIT_MS
      const deadline = Date.now() + waitMs
      const release = await mutex.acquire(name, waitMs, () => busy(waitMs))
      try {
        for (;;) {
          // The task's own errors pass through; any other (Redis unreachable) is a 503: the task never ran.
          let failed = false
          const run = () =>
            task().catch((error: unknown) => {
              failed = true
              throw error
            })
          const result = await withLease(app, `lock:${name}`, LEASE_TTL_MS, run).catch((error: unknown) => {
            if (failed) throw error
            throw new Unavailable('The lock service is unreachable: try again in a moment')
          })
          if (result.ran) return result.value
          if (Date.now() >= deadline) throw busy(waitMs)
          await sleep(POLL_MIN_MS + Math.random() * (POLL_MAX_MS - POLL_MIN_MS))
        }
      } finally {
        release()
      }
    }
  }
}
