// The no-show pass: a `scheduled` appointment whose end is more than `appointments.noShowAfterMs` past (on the one
// clock, deps.clock) becomes a `no-show`, by `system`, releasing its slot. Run as a job (src/ops/jobs.ts) under a
// lease, so one instance at a time marks them; each change is announced as a service call's would be (realtime
// event, webhooks, audit).
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import { recoveryJob } from '../jobs/recovery-loop'
import { moveAppointment } from './status'

/** The actor the no-show pass writes as. */
export const SYSTEM = 'system'

/** One pass: marks every overdue scheduled appointment a no-show; answers how many it changed. */
export const noShowPass = async (deps: Deps): Promise<number> => {
  const { noShowAfterMs } = deps.settings.get('appointments')
  const overdue = await deps.stores.appointments._find({
    query: { status: 'scheduled', end: { $lt: deps.clock.now() - noShowAfterMs }, $limit: 500 },
    paginate: false
  })
  let changed = 0
  for (const appointment of overdue) {
    try {
      const moved = await moveAppointment(deps, appointment, 'no-show', undefined, {
        by: SYSTEM,
        staff: true
      })
      await deps.announce('appointments', 'patched', moved)
      changed++
    } catch (error) {
      // Moved meanwhile (checked in, cancelled): the next pass sees it again if it still is due.
      deps.logger.warn(
        `Appointment ${appointment.id} not marked no-show: ${error instanceof Error ? error.message : 'unknown error'}`
      )
    }
  }
  return changed
}

/** The pass as a job: at start-up, then every `appointments.jobIntervalMs`, under the lease `appointments-recovery`. */
export const noShowJob = (app: Application, deps: Deps) =>
  recoveryJob(app, 'appointments', {
    intervalMs: () => deps.settings.get('appointments').jobIntervalMs,
    pass: async () => {
      const changed = await noShowPass(deps)
      return changed ? `${changed} no-shows` : null
    }
  })
