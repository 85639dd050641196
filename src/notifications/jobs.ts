// The notifications' time-driven work, one pass: the due appointment reminders (src/notifications/reminders.ts),
// then the appointment messages a crash left unqueued (src/notifications/triggers.ts). Run as a job at start-up and
// every `notifications.reminderIntervalMs`, on one instance at a time (the lease `notification-reminders-recovery`),
// and by the sandbox clock after each move (src/ops/jobs.ts).
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import { recoveryJob } from '../jobs/recovery-loop'
import { reminderPass } from './reminders'
import { recoverAppointmentMessages } from './triggers'

/** The name of the job's lease (`<name>-recovery`). */
export const REMINDERS_JOB = 'notification-reminders'

/** One pass: answers how many appointments were reminded or told a message a crash had cut off. */
export const notificationPass = async (deps: Deps): Promise<number> =>
  (await reminderPass(deps)) + (await recoverAppointmentMessages(deps))

export const reminderJob = (app: Application, deps: Deps) =>
  recoveryJob(app, REMINDERS_JOB, {
    intervalMs: () => deps.settings.get('notifications').reminderIntervalMs,
    pass: async () => {
      const changed = await notificationPass(deps)
      return changed ? `${changed} appointments reminded or told` : null
    }
  })
