// An appointment's status machine and its reschedule, moved by PATCH { status, cancelReason? } or { start }:
//   scheduled → checked-in → in-progress → completed
//   scheduled | checked-in → cancelled (cancelReason required; staff, or the patient until minNoticeMinutes
//   before start)
//   scheduled → no-show (staff, only after start)
// Each move stamps `<status>At` / `<status>By` and appends to `statusHistory`; a cancelled appointment or a no-show
// releases its slot key, so the slot can be booked again. Illegal moves are 409s naming the allowed ones.
import { Conflict, Forbidden, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import { within } from '../access/rules'
import { orNull } from '../billing/store-calls'
import { invalid } from '../schema/validators'
import type { Stored } from '../store'
import type { Appointment, AppointmentStatus } from '../services/appointments/appointments.schema'
import type { AppointmentPatch } from '../services/appointments/appointments.shared'
import { freeSlotAt, providerLock, releasedKeyOf, slotKeyOf, statusStamp } from './book'

const MINUTE = 60_000

export const nextStatuses: Record<AppointmentStatus, readonly AppointmentStatus[]> = {
  scheduled: ['checked-in', 'cancelled', 'no-show'],
  'checked-in': ['in-progress', 'cancelled'],
  'in-progress': ['completed'],
  completed: [],
  cancelled: [],
  'no-show': []
}

type StoredAppointment = Stored<Appointment>

const illegalMove = (current: StoredAppointment, status: string) => {
  const allowed = nextStatuses[current.status as AppointmentStatus] ?? []
  return new Conflict(
    `Appointment ${current.id} is ${current.status}: it cannot move to ${status}` +
      (allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (it is final)'),
    { status: current.status, allowed }
  )
}

/** Who is changing the appointment: staff (or an internal call), or its patient. */
export interface Actor {
  by: string | null
  staff: boolean
}

/**
 * One PATCH. Steps: 1. exactly one of `status` and `start` (400), `cancelReason` only with `cancelled` and
 * required by it (400 naming `cancelReason`); 2. a status move (moveAppointment) or a reschedule
 * (rescheduleAppointment).
 */
export const changeAppointment = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'locks'>,
  existing: StoredAppointment,
  patch: AppointmentPatch,
  actor: Actor,
  scope?: Query | null
): Promise<StoredAppointment> => {
  if ((patch.status === undefined) === (patch.start === undefined))
    throw invalid('data', [{ field: 'status', message: 'send exactly one of status or start' }])
  if (patch.status === 'cancelled' && patch.cancelReason === undefined)
    throw invalid('data', [{ field: 'cancelReason', message: 'is required to cancel' }])
  if (patch.cancelReason !== undefined && patch.status !== 'cancelled')
    throw invalid('data', [{ field: 'cancelReason', message: 'goes only with status: cancelled' }])
  if (patch.start !== undefined) return rescheduleAppointment(deps, existing, patch.start, actor, scope)
  return moveAppointment(deps, existing, patch.status as AppointmentStatus, patch.cancelReason, actor, scope)
}

/**
 * Moves an appointment to `status`. Steps: 1. the machine must allow it from the current status (409 naming the
 * allowed ones); 2. the patient may only cancel, until minNoticeMinutes before start (403); a no-show only after
 * start (409); 3. one conditional update (still in the status it was read in) sets the status, its stamps, the
 * history and (cancelled, no-show) the released slot key; 4. if another move won meanwhile, read again, step 1.
 */
export const moveAppointment = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  existing: StoredAppointment,
  status: AppointmentStatus,
  cancelReason: string | undefined,
  actor: Actor,
  scope?: Query | null
): Promise<StoredAppointment> => {
  const { appointments } = deps.stores
  let current: StoredAppointment | null = existing
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!nextStatuses[current.status as AppointmentStatus].includes(status))
      throw illegalMove(current, status)
    const at = deps.clock.now()
    if (!actor.staff) {
      if (status !== 'cancelled') throw new Forbidden('A patient may only cancel their appointment')
      const schedule = await orNull(deps.stores.schedules._get(current.schedule))
      const notice = (schedule?.minNoticeMinutes ?? 0) * MINUTE
      if (at > current.start - notice)
        throw new Forbidden('It is too late to cancel this appointment: ask the facility')
    }
    if (status === 'no-show' && at < current.start)
      throw new Conflict(`Appointment ${current.id} has not started yet: it cannot be a no-show`, {
        status: current.status,
        allowed: []
      })
    const releases = status === 'cancelled' || status === 'no-show'
    const moved = await orNull(
      appointments._patch(
        current.id,
        {
          $set: {
            ...statusStamp(status, at, actor.by),
            ...(cancelReason !== undefined ? { cancelReason } : {}),
            ...(releases ? { slotKey: releasedKeyOf(current.id) } : {}),
            updatedAt: at
          },
          $push: { statusHistory: { status, at, by: actor.by } }
        },
        { query: within({ status: current.status }, scope) }
      )
    )
    if (moved) return moved
    current = await orNull(appointments._get(current.id, { query: within({}, scope) }))
    if (!current) throw new NotFound(`No appointment found for id '${existing.id}'`)
  }
  throw illegalMove(current, status)
}

/**
 * Moves a scheduled appointment to another free slot. Steps: 1. only while scheduled (409); under the provider's
 * lock, as a booking (503 when it cannot be had within a few seconds): 2. the free slot at `start` with the same
 * rules as booking (400 naming `start`, 403, 409), the appointment's own time not counting as taken; 3. one
 * conditional update (still scheduled, still holding its slot key) takes the new slot's key — a booking of that
 * slot stored meanwhile makes it a 409.
 */
export const rescheduleAppointment = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'locks'>,
  existing: StoredAppointment,
  start: number,
  actor: Actor,
  scope?: Query | null
): Promise<StoredAppointment> => {
  if (existing.status !== 'scheduled')
    throw new Conflict(
      `Appointment ${existing.id} is ${existing.status}: only a scheduled one is rescheduled`,
      {
        status: existing.status
      }
    )
  return deps.locks.exclusive(providerLock(existing.provider), async () => {
    const { slot, schedule } = await freeSlotAt(deps, { ...existing, start }, !actor.staff, existing.id)
    const at = deps.clock.now()
    let moved: StoredAppointment | null
    try {
      moved = await orNull(
        deps.stores.appointments._patch(
          existing.id,
          {
            $set: {
              start: slot.start,
              end: slot.end,
              schedule: schedule.id,
              slotKey: slotKeyOf(existing.provider, slot.start),
              updatedAt: at
            }
          },
          { query: within({ status: 'scheduled', slotKey: existing.slotKey }, scope) }
        )
      )
    } catch (error) {
      if (error instanceof Conflict)
        throw new Conflict('The slot is already booked', {
          errors: [{ field: 'start', message: 'is already booked' }]
        })
      throw error
    }
    if (!moved) throw new Conflict(`Appointment ${existing.id} changed meanwhile: read it again`)
    return moved
  })
}
