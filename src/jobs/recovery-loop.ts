// Every domain's crash recovery (billing operations, stock movements and dispatches, payment-intent captures) runs
// the same way: one pass once start-up is done (the store ready), then one every `intervalMs`; passes of one
// domain never overlap in a process and, with REDIS_URL, run on one instance at a time (a Redis lease named
// `<name>-recovery`; without Redis there is one instance and the pass simply runs); a failed pass is logged, never
// thrown; shut-down stops the timer and waits for a running pass before the store closes.
import type { Application } from '../declarations'
import { withLease, withLeaseWaiting } from '../cluster/lease'
import { logger } from '../logger'
import type { Job } from './job'

// A pass holds its lease this long, renewed while it runs.
const LEASE_MS = 30_000

/** One pass of `name` under the same lease as its job's, waiting while another instance runs one (the sandbox
 *  clock's passes, which must run after the clock moved, not be skipped). */
export const recoveryPassWaiting = <T>(app: Application, name: string, pass: () => Promise<T>): Promise<T> =>
  withLeaseWaiting(app, `${name}-recovery`, LEASE_MS, pass)

export type RecoveryWhen = 'startup' | 'periodic'

/** One recovery pass of `name` on one instance at a time: its result, or null when another instance is running one. */
export const recoveryPass = async <T>(
  app: Application,
  name: string,
  pass: () => Promise<T>
): Promise<T | null> => {
  const result = await withLease(app, `${name}-recovery`, LEASE_MS, pass)
  return result.ran ? result.value : null
}

/**
 * The cutoff before which unfinished work counts as interrupted: at start-up on the embedded engine, where one
 * process owns the data, everything; on MongoDB (other instances may still be working) only what is older than
 * `staleAfterMs`.
 */
export const staleCutoff = (app: Application, when: RecoveryWhen, staleAfterMs: number) =>
  when === 'startup' && !app.get('mongodb') ? Date.now() : Date.now() - staleAfterMs

/**
 * The start-up and periodic passes of `name` as a job (started and stopped by src/ops/jobs.ts). `pass` does the
 * work (under the lease) and answers a summary worth logging, or nothing.
 */
export const recoveryJob = (
  app: Application,
  name: string,
  options: { intervalMs: () => number; pass: (when: RecoveryWhen) => Promise<string | null | undefined> }
): Job => {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<unknown> = Promise.resolve()
  const run = (when: RecoveryWhen) => {
    running = running
      .then(() => recoveryPass(app, name, () => options.pass(when)))
      .then((summary) => {
        if (summary) logger.info(`Recovery of ${name} (${when}): ${summary}`)
      })
      .catch((error) => logger.error(`Recovery of ${name} (${when}) failed:`, error))
    return running
  }
  return {
    name: `${name} recovery`,
    async start() {
      await run('startup')
      const intervalMs = options.intervalMs()
      if (intervalMs > 0) {
        timer = setInterval(() => void run('periodic'), intervalMs)
        timer.unref()
      }
    },
    async stop() {
      if (timer) clearInterval(timer)
      await running
    }
  }
}
