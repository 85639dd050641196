// Check-in puts the patient in the waiting room: when an appointment moves to `checked-in` and its facility has an
// active default queue, a queue item `{ queue: default, patient, appointment }` is issued — exactly once per
// appointment (the item's unique `appointmentKey`, and a look-up first). The registration of /queue-items
// subscribes `onAppointmentChanged` to the app's `record.changed`, whose handlers run before the check-in is
// answered; should one fail or the process stop in between, the recovery pass (`checkInRecoveryJob`, at start-up
// and periodically, under a lease) issues the missing items of the appointments checked in on the facility's
// current local day.
import { Conflict } from '@feathersjs/errors'
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import type { RecordChange } from '../events'
import { recoveryJob } from '../jobs/recovery-loop'
import { localDay } from '../appointments/zone'
import type { Stored } from '../store'
import type { Queue } from '../services/queues/queues.schema'
import { issueItem, itemOfAppointment, type StoredQueueItem } from './items'
import { facilityTimeZone } from '../appointments/schedules'
import { SYSTEM } from '../appointments/no-show'

const DAY = 86_400_000

/** The facility's active default queue, if any. */
export const activeDefaultQueue = async (deps: Pick<Deps, 'stores'>, facility: string) =>
  (
    await deps.stores.queues._find({
      query: { facility, default: true, active: true, $limit: 1 },
      paginate: false
    })
  )[0] as Stored<Queue> | undefined

/** The item issued for a checked-in appointment, or null when its facility has no active default queue or the
 *  appointment already has an item. */
export const checkInItem = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  appointment: { id: string; facility: string; patient: string },
  by: string | null
): Promise<StoredQueueItem | null> => {
  const queue = await activeDefaultQueue(deps, appointment.facility)
  if (!queue || (await itemOfAppointment(deps, appointment.id))) return null
  try {
    return await issueItem(deps, queue, { patient: appointment.patient, appointment: appointment.id }, by)
  } catch (error) {
    if (error instanceof Conflict) return null // issued meanwhile (the recovery pass and a check-in at once)
    throw error
  }
}

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)

/**
 * The `record.changed` subscriber: each appointment of the change that is `checked-in` gets its item (announced
 * as created). A failure is logged, never thrown: the check-in stands, and the recovery pass issues the item.
 */
export const onAppointmentChanged = async (deps: Deps, change: RecordChange) => {
  if (change.path !== 'appointments') return
  for (const doc of change.docs) {
    const [id, facility, patient] = [str(doc.id), str(doc.facility), str(doc.patient)]
    if (doc.status !== 'checked-in' || !id || !facility || !patient) continue
    try {
      const by = str(doc['checked-inBy']) ?? change.params?.account?.id ?? SYSTEM
      const item = await checkInItem(deps, { id, facility, patient }, by)
      if (item) await deps.announce('queue-items', 'created', item)
    } catch (error) {
      deps.logger.warn(
        `No queue item for checked-in appointment ${id}: ${error instanceof Error ? error.message : 'unknown error'}`
      )
    }
  }
}

/**
 * One recovery pass: for each active default queue, the facility's appointments checked in on its current local
 * day that have no queue item get one (announced as created). Answers how many it issued.
 */
export const checkInRecoveryPass = async (deps: Deps): Promise<number> => {
  const now = deps.clock.now()
  const queues = await deps.stores.queues._find({ query: { default: true, active: true }, paginate: false })
  let issued = 0
  for (const queue of queues) {
    const zone = await facilityTimeZone(deps, queue.facility)
    const today = localDay(now, zone).date
    const checkedIn = (
      await deps.stores.appointments._find({
        query: {
          facility: queue.facility,
          start: { $gte: now - 2 * DAY, $lt: now + 2 * DAY },
          status: 'checked-in'
        },
        paginate: false
      })
    ).filter((a) => typeof a['checked-inAt'] === 'number' && localDay(a['checked-inAt'], zone).date === today)
    if (checkedIn.length === 0) continue
    const queued = new Set(
      (
        await deps.stores.queueItems._find({
          query: { appointment: { $in: checkedIn.map((a) => a.id) }, $select: ['appointment'] },
          paginate: false
        })
      ).map((item) => item.appointment)
    )
    for (const appointment of checkedIn.filter((a) => !queued.has(a.id))) {
      const item = await checkInItem(deps, appointment, SYSTEM)
      if (!item) continue
      await deps.announce('queue-items', 'created', item)
      issued++
    }
  }
  return issued
}

/** The recovery pass as a job: at start-up, then every `appointments.jobIntervalMs`, under the lease
 *  `queue-check-ins-recovery`. */
export const checkInRecoveryJob = (app: Application, deps: Deps) =>
  recoveryJob(app, 'queue-check-ins', {
    intervalMs: () => deps.settings.get('appointments').jobIntervalMs,
    pass: async () => {
      const issued = await checkInRecoveryPass(deps)
      return issued ? `${issued} queue items of checked-in appointments` : null
    }
  })
