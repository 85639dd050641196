// Booking an appointment into a free slot. The race between bookings of one slot is decided by the store's
// unique index on `slotKey` (`<provider>:<start>`): of twenty simultaneous creates exactly one is stored, the
// others get the store's 409, on both engines and across instances — no read-then-write decides it.
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

/** Appointments of the providers holding time in [from, to). */
export const bookedFor = async (
  deps: Pick<Deps, 'stores'>,
  providers: string[],
  from: number,
  to: number
): Promise<Booked[]> =>
  providers.length === 0
    ? []
    : deps.stores.appointments._find({
        query: {
          provider: { $in: [...new Set(providers)] },
          status: { $in: [...holdingStatuses] },
          start: { $lt: to },
          end: { $gt: from },
          $select: ['provider', 'start', 'end']
        },
        paginate: false
      })

/** Appointments of the provider holding time in [from, to), but `except` (the one being rescheduled). */
const bookedBetween = async (
  deps: Pick<Deps, 'stores'>,
  provider: string,
  from: number,
  to: number,
  except?: string
): Promise<Booked[]> =>
  deps.stores.appointments._find({
    query: {
      provider,
      status: { $in: [...holdingStatuses] },
      start: { $lt: to },
      end: { $gt: from },
      ...(except ? { id: { $ne: except } } : {})
    },
    paginate: false
  })

/**
 * The free slot starting at `start` of the provider's active schedules at the facility. Steps: 1. the schedules
 * (for a patient booking themself, only those open to patients: none is a 403); 2. the slot of the grid at
 * `start`, bookings aside (none: off the grid, outside the windows, before the minimum notice or past the
 * horizon: 400 naming `start`); 3. the same with the bookings around it (taken: 409).
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
  for (const { slot, schedule } of onGrid) {
    const booked = await bookedBetween(
      deps,
      target.provider,
      slot.start - schedule.bufferMinutes * MINUTE,
      slot.end,
      except
    )
    if (scheduleSlots(schedule, booked, now, ...range).length) return { slot, schedule }
  }
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
 * Books an appointment. Steps: 0. the patient must be an account (400 naming `patient`); 1. the free slot at `start` (freeSlotAt: 400, 403 or 409); 2. `end` = the slot's
 * end, status `scheduled` with its stamps and history; 3. stored with the slot's unique key — a booking of the same
 * slot stored meanwhile makes the store answer 409.
 */
export const createAppointment = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  data: AppointmentData & { createdAt: number; createdBy: string | null },
  asPatient: boolean
): Promise<Stored<Appointment>> => {
  if (!(await orNull(deps.stores.accounts._get(data.patient))))
    throw invalid('data', [{ field: 'patient', message: 'is not an account' }])
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
}
