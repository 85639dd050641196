// The app's time-driven passes (subscription renewals, no-shows, audit retention...), each registered once by its
// job: the sandbox clock runs them all, in the order registered, right after moving time forward, and reports how
// many things each changed. A pass that fails is logged and reported with its message; the others still run.
import type { TimeDrivenPass, TimeDrivenPasses } from '../deps'
import type { Logger } from '../logger'

export const createTimeDrivenPasses = (logger: Pick<Logger, 'error'>): TimeDrivenPasses => {
  const list: TimeDrivenPass[] = []
  return {
    register(pass) {
      const at = list.findIndex((known) => known.job === pass.job)
      if (at >= 0) list[at] = pass
      else list.push(pass)
    },
    async runAll() {
      const ran: { job: string; changed: number; error?: string }[] = []
      for (const pass of list) {
        try {
          ran.push({ job: pass.job, changed: await pass.run() })
        } catch (error) {
          logger.error(`Time-driven pass ${pass.job} failed:`, error)
          ran.push({ job: pass.job, changed: 0, error: error instanceof Error ? error.message : 'failed' })
        }
      }
      return ran
    }
  }
}
