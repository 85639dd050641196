// Free slots: a pure function of the schedules, the booked appointments and the time now. Steps, per active
// schedule: 1. the search range is cut to [now + minNoticeMinutes, now + horizonDays) (and to the caller's
// [from, to)); 2. each local date of the schedule's time zone in that range has its windows: an exception of that
// date (closed: none; start/end: that one window) or the weekly windows of its weekday; 3. each window is cut
// into slots of `slotMinutes` from its start (wall-clock times turned into instants in the schedule's zone, so a
// 09:00 window stays 09:00 local across daylight-saving changes; a slot that would pass the window's end is not
// one); 4. a slot is taken when it overlaps a booked appointment of the provider (of any schedule) or the buffer
// after it (the larger of this schedule's `bufferMinutes` and the booked appointment's own schedule's), or when
// the booked appointment starts within this schedule's `bufferMinutes` after the slot's end: each appointment
// keeps its buffer after it free; 5. the slots whose start lies in the range are answered, by ascending start (then provider).
import type { Schedule } from '../services/schedules/schedules.shared'
import { instantOf, localDay, nextDate, weekdayOf } from './zone'

const MINUTE = 60_000
const DAY = 86_400_000

export interface Slot {
  provider: string
  schedule: string
  start: number
  end: number
}

/** An appointment that holds its time (not cancelled, not a no-show). */
export interface Booked {
  provider: string
  start: number
  end: number
  /** The buffer its own schedule keeps after it, in ms (when known; else the buffer of the slot's schedule). */
  bufferAfter?: number
}

export type SlotSchedule = Pick<
  Schedule,
  | 'id'
  | 'provider'
  | 'timeZone'
  | 'weekly'
  | 'exceptions'
  | 'slotMinutes'
  | 'bufferMinutes'
  | 'horizonDays'
  | 'minNoticeMinutes'
  | 'active'
>

/** The windows of one local date: its exception, else the weekly windows of its weekday. */
const windowsOf = (schedule: SlotSchedule, date: string): { start: string; end: string }[] => {
  const exception = schedule.exceptions.find((e) => e.date === date)
  if (exception) return 'start' in exception ? [exception] : []
  const day = weekdayOf(date)
  return schedule.weekly.filter((w) => w.day === day)
}

/** The bookable range of a schedule within [from, to): after the minimum notice, before the horizon. */
export const bookableRange = (schedule: SlotSchedule, now: number, from: number, to: number) => ({
  from: Math.max(from, now + schedule.minNoticeMinutes * MINUTE),
  to: Math.min(to, now + schedule.horizonDays * DAY)
})

/** The instant of a wall-clock time on a date in a zone (zone.ts), remembered for one search: the schedules of a
 *  facility mostly share their zone and their windows' times, and each Luxon conversion is the costly step. */
export type InstantOf = (date: string, clock: string, zone: string) => number

export const rememberedInstants = (): InstantOf => {
  const known = new Map<string, number>()
  return (date, clock, zone) => {
    const key = `${zone} ${date} ${clock}`
    let instant = known.get(key)
    if (instant === undefined) known.set(key, (instant = instantOf(date, clock, zone)))
    return instant
  }
}

/** The free slots of one schedule in [from, to). */
export const scheduleSlots = (
  schedule: SlotSchedule,
  booked: readonly Booked[],
  now: number,
  from: number,
  to: number,
  instant: InstantOf = instantOf
): Slot[] => {
  if (!schedule.active) return []
  const range = bookableRange(schedule, now, from, to)
  if (range.from >= range.to) return []
  const length = schedule.slotMinutes * MINUTE
  const buffer = schedule.bufferMinutes * MINUTE
  const taken = booked.filter((b) => b.provider === schedule.provider)
  const slots: Slot[] = []
  const zone = schedule.timeZone
  // Windows never pass midnight, so the local date of the range's start is the first one with slots in range.
  for (
    let date = localDay(range.from, zone).date;
    instant(date, '00:00', zone) < range.to;
    date = nextDate(date)
  ) {
    for (const window of windowsOf(schedule, date)) {
      const windowEnd = instant(date, window.end, zone)
      for (let start = instant(date, window.start, zone); start + length <= windowEnd; start += length) {
        const end = start + length
        if (start < range.from || start >= range.to) continue
        if (taken.some((b) => start < b.end + Math.max(buffer, b.bufferAfter ?? 0) && b.start < end + buffer))
          continue
        slots.push({ provider: schedule.provider, schedule: schedule.id, start, end })
      }
    }
  }
  return slots
}

/** The free slots of several schedules in [from, to), by ascending start (then provider). */
export const freeSlots = (
  schedules: readonly SlotSchedule[],
  booked: readonly Booked[],
  now: number,
  from: number,
  to: number
): Slot[] => {
  const instant = rememberedInstants()
  return schedules
    .flatMap((schedule) => scheduleSlots(schedule, booked, now, from, to, instant))
    .sort(
      (a, b) =>
        a.start - b.start || a.provider.localeCompare(b.provider) || a.schedule.localeCompare(b.schedule)
    )
}
