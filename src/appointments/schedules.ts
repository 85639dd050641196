// Schedules: who may set them, and what makes one valid. A schedule is a provider's weekly windows at a facility
// in a time zone; the checks here run on create and on every patch (on the document as it would be stored).
import { BadRequest, Forbidden, NotFound } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { AccessContext } from '../access/context'
import { organizationIds } from '../access/context'
import { invalid, type FieldError } from '../schema/validators'
import type { Stored } from '../store'
import { orNull } from '../billing/store-calls'
import type { Schedule, ScheduleData, SchedulePatch } from '../services/schedules/schedules.shared'
import { scheduleDefaults } from '../services/schedules/schedules.schema'
import { isTimeZone } from './zone'

/** The membership privilege that lets a member manage the facility's schedules and appointments. */
export const SCHEDULING_PRIVILEGE = 'scheduling'

/** Facilities whose schedules the caller manages: superadmin or the `scheduling` privilege. */
export const schedulingFacilities = (access: AccessContext) =>
  access.memberships
    .filter((m) => m.superadmin || (m.privileges ?? []).includes(SCHEDULING_PRIVILEGE))
    .map((m) => m.organization)

/** Read rule: the facility's members, and anyone signed in for schedules open to patient self-booking. */
export const scheduleReadScope = (access: AccessContext) => ({
  $or: [{ facility: { $in: organizationIds(access) } }, { booking: 'patients', active: true }]
})

/** Write rule: the facility's schedulers, and a provider for their own schedule (while still a member). */
export const scheduleWriteScope = (access: AccessContext) => ({
  $or: [
    { facility: { $in: schedulingFacilities(access) } },
    { provider: access.accountId, facility: { $in: organizationIds(access) } }
  ]
})

/** Create rule: a stranger to the facility gets 404; a member who is neither scheduler nor the provider 403. */
export const checkScheduleCreate = (access: AccessContext, data: ScheduleData) => {
  if (!organizationIds(access).includes(data.facility))
    throw new NotFound(`No facility found for id '${data.facility}'`)
  if (!schedulingFacilities(access).includes(data.facility) && data.provider !== access.accountId)
    throw new Forbidden(
      `Setting another provider's schedule needs the '${SCHEDULING_PRIVILEGE}' privilege or superadmin`
    )
}

const minutesOf = (clock: string) => {
  const [h, m] = clock.split(':').map(Number)
  return h * 60 + m
}

type Shape = Pick<Schedule, 'timeZone' | 'weekly' | 'exceptions'>

/**
 * The problems of a schedule's shape, each naming its field: an unknown time zone; a window or an exception whose
 * `end` is not after its `start`; two windows of one day that overlap; two exceptions of one date.
 */
export const scheduleProblems = (schedule: Shape): FieldError[] => {
  const errors: FieldError[] = []
  if (!isTimeZone(schedule.timeZone))
    errors.push({ field: 'timeZone', message: `is not a known IANA time zone: '${schedule.timeZone}'` })
  schedule.weekly.forEach((w, i) => {
    if (minutesOf(w.end) <= minutesOf(w.start))
      errors.push({ field: `weekly.${i}.end`, message: 'must be after start' })
    else if (w.start === '24:00') errors.push({ field: `weekly.${i}.start`, message: 'must be before 24:00' })
  })
  schedule.weekly.forEach((w, i) => {
    const clash = schedule.weekly.findIndex(
      (o, j) =>
        j < i &&
        o.day === w.day &&
        minutesOf(o.start) < minutesOf(w.end) &&
        minutesOf(w.start) < minutesOf(o.end)
    )
    if (clash >= 0) errors.push({ field: `weekly.${i}`, message: `overlaps weekly.${clash} (day ${w.day})` })
  })
  const dates = new Map<string, number>()
  schedule.exceptions.forEach((e, i) => {
    if ('start' in e && minutesOf(e.end) <= minutesOf(e.start))
      errors.push({ field: `exceptions.${i}.end`, message: 'must be after start' })
    const seen = dates.get(e.date)
    if (seen !== undefined)
      errors.push({ field: `exceptions.${i}.date`, message: `is already exceptions.${seen}.date` })
    else dates.set(e.date, i)
  })
  return errors
}

/** The facility's IANA time zone, or "UTC" when it names none (or is not found). */
export const facilityTimeZone = async (deps: Pick<Deps, 'stores'>, facility: string): Promise<string> => {
  const organization = await orNull(deps.stores.organizations._get(facility))
  return organization?.timeZone ?? 'UTC'
}

/**
 * Creates a schedule. Steps: 1. defaults (the time zone: the facility's, else "UTC"); 2. the shape
 * checks (400 naming the field); 3. the provider must be a member of the facility (400 naming `provider`);
 * 4. stored with `updatedAt`.
 */
export const createSchedule = async (
  deps: Pick<Deps, 'stores' | 'access'>,
  data: ScheduleData & { createdAt: number; createdBy: string | null }
): Promise<Stored<Schedule>> => {
  const doc = {
    ...scheduleDefaults,
    timeZone: await facilityTimeZone(deps, data.facility),
    ...data,
    updatedAt: data.createdAt
  }
  const errors = scheduleProblems(doc)
  if (!(await deps.access.isMemberWith(doc.provider, doc.facility)))
    errors.push({ field: 'provider', message: 'is not a member of the facility' })
  if (errors.length) throw invalid('data', errors)
  return deps.stores.schedules._create(doc)
}

/** Changes a schedule: the patched document must pass the shape checks (400 naming the field). */
export const changeSchedule = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  existing: Stored<Schedule>,
  patch: SchedulePatch,
  scope: Record<string, unknown> | undefined
): Promise<Stored<Schedule>> => {
  const errors = scheduleProblems({ ...existing, ...patch })
  if (errors.length) throw invalid('data', errors)
  if (Object.keys(patch).length === 0) throw new BadRequest('Nothing to change')
  return deps.stores.schedules._patch(
    existing.id,
    { ...patch, updatedAt: deps.clock.now() },
    { query: scope }
  )
}
