// The attachments job: uploads that never came are removed once their URL expired (a time-driven pass, which the
// sandbox clock also runs), record removals a crash cut off are finished, and at start-up the files' copies of
// their records' grants are brought in step with the records (./records.ts) and bytes no file references any more
// (a crash between a removal and its release) are removed (./blob-refs.ts). At start-up on every
// engine all marked removals are finished (their steps are idempotent); afterwards those older than
// `billing.staleAfterMs`, so that a removal still in flight on another instance is left to it. It runs with the
// other recoveries' interval (`billing.recoveryIntervalMs`), under the lease `attachments-recovery`.
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import { recoveryJob, type RecoveryWhen } from '../jobs/recovery-loop'
import { finishRecordRemovals, repairRecordGrants } from './records'
import { expireUploads } from './remove'
import { sweepUnreferencedBlobs } from './blob-refs'

/** One pass: finished record removals and expired uploads removed. */
export const attachmentsPass = async (deps: Deps, when: RecoveryWhen = 'periodic') => {
  const now = deps.clock.now()
  const before = when === 'startup' ? now : now - deps.settings.get('billing').staleAfterMs
  const records = await finishRecordRemovals(deps, before)
  const expired = await expireUploads(deps)
  const regranted = when === 'startup' ? await repairRecordGrants(deps) : 0
  const swept = when === 'startup' ? await sweepUnreferencedBlobs(deps) : 0
  return { records, expired, regranted, swept }
}

/** The name of the job and of its lease. */
export const ATTACHMENTS_JOB = 'attachments'

export const attachmentsJob = (app: Application, deps: Deps) =>
  recoveryJob(app, ATTACHMENTS_JOB, {
    intervalMs: () => deps.settings.get('billing').recoveryIntervalMs,
    pass: async (when) => {
      const { records, expired, regranted, swept } = await attachmentsPass(deps, when)
      const parts = [
        ...(records ? [`${records} record removals finished`] : []),
        ...(expired ? [`${expired} expired uploads removed`] : []),
        ...(regranted ? [`${regranted} files' record grants brought in step`] : []),
        ...(swept ? [`${swept} unreferenced files' bytes removed`] : [])
      ]
      return parts.length ? parts.join(', ') : null
    }
  })
