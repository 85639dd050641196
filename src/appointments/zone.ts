// Time zones and local wall-clock times, through Luxon: the one module of the server that imports it, so that the
// daylight-saving rules come from a maintained library (the IANA data the runtime carries), never from offsets
// written by hand.
import { DateTime, Duration, IANAZone } from 'luxon'

/** Is `name` an IANA time zone the runtime knows ("Europe/Berlin", "UTC")? */
export const isTimeZone = (name: string): boolean => IANAZone.isValidZone(name)

/** The local calendar day of `ms` in `zone`: its date ("YYYY-MM-DD") and weekday (0 = Sunday). */
export const localDay = (ms: number, zone: string): { date: string; day: number } => {
  const local = DateTime.fromMillis(ms, { zone })
  return { date: local.toISODate() ?? '', day: local.weekday % 7 }
}

/** The day after `date` ("YYYY-MM-DD"), on the calendar. */
export const nextDate = (date: string): string =>
  DateTime.fromISO(date, { zone: 'UTC' }).plus({ days: 1 }).toISODate() ?? ''

/** The weekday (0 = Sunday) of `date` ("YYYY-MM-DD"). */
export const weekdayOf = (date: string): number => DateTime.fromISO(date, { zone: 'UTC' }).weekday % 7

/**
 * The instant (ms) of the wall-clock time `clock` ("HH:MM", "24:00" = the next midnight) on `date` in `zone`
 * plus `minutes` of elapsed time. A wall time that does not exist (skipped by a daylight-saving change) moves
 * forward by the gap, as Luxon does; an ambiguous one takes the earlier offset.
 */
export const instantOf = (date: string, clock: string, zone: string, minutes = 0): number => {
  const [hour, minute] = clock.split(':').map(Number)
  const midnight = DateTime.fromISO(date, { zone })
  const local = hour === 24 ? midnight.plus({ days: 1 }) : midnight.set({ hour, minute })
  return local.toMillis() + minutes * 60_000
}

/** A length of time as people write it, in its largest whole units ("7 days", "1 day, 12 hours", "30 minutes"). */
export const formatDuration = (ms: number, locale = 'en'): string => {
  const parts = Duration.fromMillis(Math.max(0, Math.round(ms / 60_000)) * 60_000)
    .shiftTo('days', 'hours', 'minutes')
    .toObject()
  const units = (['days', 'hours', 'minutes'] as const).filter((unit) => (parts[unit] ?? 0) > 0)
  if (units.length === 0) return Duration.fromObject({ minutes: 0 }, { locale }).toHuman()
  return Duration.fromObject(Object.fromEntries(units.map((unit) => [unit, parts[unit]])), {
    locale
  }).toHuman()
}

/** `ms` as a reader of `locale` reads a date and time in `zone` ("Monday, March 8, 2027 at 9:00 AM"). */
export const formatLocal = (ms: number, zone: string, locale = 'en'): string => {
  const local = DateTime.fromMillis(ms, { zone }).setLocale(locale)
  return local.isValid ? local.toLocaleString(DateTime.DATETIME_FULL) : new Date(ms).toISOString()
}

/** The local wall-clock time ("HH:MM") of `ms` in `zone`. */
export const localClock = (ms: number, zone: string): string =>
  DateTime.fromMillis(ms, { zone }).toFormat('HH:mm')

/**
 * The first instant at or after `ms` outside the daily quiet hours `start`–`end` ("HH:MM", local to `zone`; a span
 * across midnight when `end` ≤ `start`): `ms` itself when it is outside them.
 */
export const afterQuietHours = (ms: number, zone: string, start: string, end: string): number => {
  if (start === end) return ms
  const now = localClock(ms, zone)
  const inside = start < end ? now >= start && now < end : now >= start || now < end
  if (!inside) return ms
  const { date } = localDay(ms, zone)
  const endToday = instantOf(date, end, zone)
  return endToday > ms ? endToday : instantOf(nextDate(date), end, zone)
}
