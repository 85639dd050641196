// Booking an appointment into a free slot. Two rules decide a race between bookings, neither a bare
// read-then-write: 1. the check that the provider's time is free (every schedule of theirs, buffers both ways) and
// the insert run under the provider's lock (`deps.locks`: in process and, with REDIS_URL, across instances), so
// overlapping bookings of different starts (another grid, inside a buffer) are decided one after the other;
// 2. the store's unique index on `slotKey` (`<provider>:<start>`) stays the backstop for equal starts.
import { Conflict, Forbidden, NotFound } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { AccessContext } from '../access/context'
import { organizationIds } from '../access/context'
import { invalid } from '../schema/validators'
import { orNull } from '../billing/store-calls'
import type { Stored } from '../store'
import type { Appointment, AppointmentStatus } from '../services/appointments/appointments.schema'
import type { AppointmentData } from '../services/appointments/appointments.shared'
import type { Schedule } from '../services/schedules/schedules.shared'
import { schedulingFacilities } from './schedules'
import { scheduleSlots, type Booked, type Slot } from './slots'

const MINUTE = 60_000

/** The statuses of an appointment that holds its time (a cancelled one or a no-show frees it). */
export const holdingStatuses: readonly AppointmentStatus[] = [
  'scheduled',
  'checked-in',
  'in-progress',
  'completed'
]

/** The unique key of the slot an appointment holds. */
export const slotKeyOf = (provider: string, start: number) => `${provider}:${start}`
/** The key of an appointment that no longer holds a slot (unique by its id). */
export const releasedKeyOf = (id: string) => `released:${id}`

/** Staff of an appointment: superadmins and schedulers of its facility, and its provider. */
export const isStaff = (access: AccessContext | undefined, facility: string, provider: string) =>
  !access ||
  schedulingFacilities(access).includes(facility) ||
  (provider === access.accountId && organizationIds(access).includes(facility))

/** Read and write rule: the facility's schedulers and superadmins, the provider, the patient. */
export const appointmentScope = (access: AccessContext) => ({
  $or: [
    { facility: { $in: schedulingFacilities(access) } },
    { provider: access.accountId },
    { patient: access.accountId }
  ]
})

/** Create rule: staff book for any patient, a patient for themself; a plain member gets 403, a stranger 404. */
export const checkAppointmentCreate = (access: AccessContext, data: AppointmentData) => {
  if (isStaff(access, data.facility, data.provider) || data.patient === access.accountId) return
  if (organizationIds(access).includes(data.facility))
    throw new Forbidden(
      `Booking for another patient needs the 'scheduling' privilege, superadmin or being the provider`
    )
  throw new NotFound(`No facility found for id '${data.facility}'`)
}

// The largest `bufferMinutes` a schedule may have: how far before a slot a booking can still take it.
const MAX_BUFFER_MS = 120 * MINUTE

/** The lock serializing the bookings and reschedules of one provider (every facility, every schedule). */
export const providerLock = (provider: string) => `appointments:provider:${provider}`

/** The appointments' `bufferAfter`: the buffer of the schedule each was booked on (`known` first, else read). */
const withBuffers = async (
  deps: Pick<Deps, 'stores'>,
  booked: Stored<Appointment>[],
  known: readonly Pick<Schedule, 'id' | 'bufferMinutes'>[]
): Promise<Booked[]> => {
  const buffers = new Map(known.map((s) => [s.id, s.bufferMinutes * MINUTE]))
  const missing = [...new Set(booked.map((b) => b.schedule))].filter((id) => !buffers.has(id))
  if (missing.length)
    for (const schedule of await deps.stores.schedules._find({
      query: { id: { $in: missing }, $select: ['id', 'bufferMinutes'] },
      paginate: false
    }))
      buffers.set(schedule.id, schedule.bufferMinutes * MINUTE)
  return booked.map((b) => ({
    provider: b.provider,
    start: b.start,
    end: b.end,
    bufferAfter: buffers.get(b.schedule) ?? 0
  }))
}

/** Appointments of `provider` holding time in [from, to), but `except` (the one being rescheduled). */
const holding = (provider: string | { $in: string[] }, from: number, to: number, except?: string) => ({
  provider,
  status: { $in: [...holdingStatuses] },
  start: { $lt: to },
  end: { $gt: from },
  ...(except ? { id: { $ne: except } } : {})
})

/**
 * The appointments of the schedules' providers (at any facility, on any schedule) that can take a slot of theirs
 * starting in [from, to): those ending up to the largest buffer before `from`, and those starting before `to`
 * plus a slot and its buffer; each with the buffer of its own schedule.
 */
export const bookedFor = async (
  deps: Pick<Deps, 'stores'>,
  schedules: readonly Pick<Schedule, 'id' | 'provider' | 'slotMinutes' | 'bufferMinutes'>[],
  from: number,
  to: number
): Promise<Booked[]> => {
  if (schedules.length === 0) return []
  const after = Math.max(...schedules.map((s) => s.slotMinutes + s.bufferMinutes)) * MINUTE
  const booked = await deps.stores.appointments._find({
    query: {
      ...holding({ $in: [...new Set(schedules.map((s) => s.provider))] }, from - MAX_BUFFER_MS, to + after),
      $select: ['id', 'provider', 'schedule', 'start', 'end']
    },
    paginate: false
  })
  return withBuffers(deps, booked, schedules)
}

/**
 * The free slot starting at `start` of the provider's active schedules at the facility. Steps: 1. the schedules
 * (for a patient booking themself, only those open to patients: none is a 403); 2. the slot of the grid at
 * `start`, bookings aside (none: off the grid, outside the windows, before the minimum notice or past the
 * horizon: 400 naming `start`); 3. the same with every appointment of the provider around it, buffers both ways
 * (taken: 409). Run under the provider's lock (providerLock) so that nothing is booked between this check and the
 * write that follows it.
 */
export const freeSlotAt = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  target: { facility: string; provider: string; start: number },
  asPatient: boolean,
  except?: string
): Promise<{ slot: Slot; schedule: Stored<Schedule> }> => {
  const all = await deps.stores.schedules._find({
    query: { facility: target.facility, provider: target.provider, active: true },
    paginate: false
  })
  const schedules = asPatient ? all.filter((s) => s.booking === 'patients') : all
  if (asPatient && schedules.length === 0)
    throw new Forbidden("The provider's schedule is not open to booking by patients")
  const now = deps.clock.now()
  const range = [target.start, target.start + 1] as const
  const onGrid = schedules.flatMap((schedule) =>
    scheduleSlots(schedule, [], now, ...range).map((slot) => ({ slot, schedule }))
  )
  if (onGrid.length === 0)
    throw invalid('data', [
      { field: 'start', message: "is not the start of a bookable slot of the provider's schedule" }
    ])
  // Every appointment of the provider that can touch one of these slots: ending within the largest buffer before
  // it, or starting before its end plus its buffer.
  const booked = await deps.stores.appointments._find({
    query: holding(
      target.provider,
      target.start - MAX_BUFFER_MS,
      Math.max(...onGrid.map(({ slot, schedule }) => slot.end + schedule.bufferMinutes * MINUTE)),
      except
    ),
    paginate: false
  })
  const taken = await withBuffers(deps, booked, all)
  for (const { slot, schedule } of onGrid)
    if (scheduleSlots(schedule, taken, now, ...range).length) return { slot, schedule }
  throw slotTaken(target.start)
}

const slotTaken = (start: number) =>
  new Conflict('The slot is already booked', {
    errors: [{ field: 'start', message: 'is already booked' }],
    start
  })

/** The fields a status move sets: the status and its `<status>At` / `<status>By` stamps. */
export const statusStamp = (status: AppointmentStatus, at: number, by: string | null) => ({
  status,
  [`${status}At`]: at,
  [`${status}By`]: by
})

/**
 * Books an appointment. Steps: 0. the patient must be an account (400 naming `patient`); under the provider's lock
 * (503 when it cannot be had within a few seconds): 1. the free slot at `start` (freeSlotAt: 400, 403 or 409);
 * 2. `end` = the slot's end, status `scheduled` with its stamps and history; 3. stored with the slot's unique key —
 * a booking of the same slot stored meanwhile (by a holder of the lock that lost it) makes the store answer 409.
 */
export const createAppointment = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'locks'>,
  data: AppointmentData & { createdAt: number; createdBy: string | null },
  asPatient: boolean
): Promise<Stored<Appointment>> => {
  if (!(await orNull(deps.stores.accounts._get(data.patient))))
    throw invalid('data', [{ field: 'patient', message: 'is not an account' }])
  return deps.locks.exclusive(providerLock(data.provider), async () => {
    const { slot, schedule } = await freeSlotAt(deps, data, asPatient)
    const at = deps.clock.now()
    try {
      return await deps.stores.appointments._create({
        ...data,
        schedule: schedule.id,
        end: slot.end,
        ...statusStamp('scheduled', at, data.createdBy),
        statusHistory: [{ status: 'scheduled', at, by: data.createdBy }],
        slotKey: slotKeyOf(data.provider, slot.start),
        updatedAt: at
      })
    } catch (error) {
      if (error instanceof Conflict) throw slotTaken(data.start)
      throw error
    }
  })
}
