// Times in the facility's time zone, with Intl.DateTimeFormat only (the server answers each appointment's
// `timeZone`, a schedule has its own): a calendar day is the facility's local day, whatever the browser's zone.
export const MINUTE = 60_000
export const DAY = 86_400_000

const partsCache = new Map<string, Intl.DateTimeFormat>()
const partsFormat = (timeZone: string) => {
  let format = partsCache.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit'
    })
    partsCache.set(timeZone, format)
  }
  return format
}

/** The wall-clock fields of `ms` in `timeZone`. */
export const wallClock = (ms: number, timeZone: string) => {
  const fields: Record<string, number> = {}
  for (const part of partsFormat(timeZone).formatToParts(new Date(ms)))
    if (part.type !== 'literal') fields[part.type] = Number(part.value)
  return {
    year: fields.year,
    month: fields.month,
    day: fields.day,
    hour: fields.hour === 24 ? 0 : fields.hour,
    minute: fields.minute,
    second: fields.second
  }
}

/** How far `timeZone` is ahead of UTC at `ms`. */
const offsetAt = (ms: number, timeZone: string) => {
  const w = wallClock(ms, timeZone)
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000
}

/** The instant of local midnight of the date "YYYY-MM-DD" in `timeZone`. */
export const startOfLocalDay = (date: string, timeZone: string): number => {
  const [year, month, day] = date.split('-').map(Number)
  const wall = Date.UTC(year, month - 1, day)
  let guess = wall - offsetAt(wall, timeZone)
  guess = wall - offsetAt(guess, timeZone)
  return guess
}

/** The local date "YYYY-MM-DD" of `ms` in `timeZone`. */
export const localDate = (ms: number, timeZone: string): string => {
  const w = wallClock(ms, timeZone)
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`
}

/** The date `days` after "YYYY-MM-DD" (calendar arithmetic, no zone involved). */
export const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10)

/** The Monday of the week of "YYYY-MM-DD". */
export const mondayOf = (date: string): string => {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay()
  return addDays(date, -((weekday + 6) % 7))
}

export const formatTime = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat(undefined, { timeZone, hour: '2-digit', minute: '2-digit' }).format(new Date(ms))

export const formatDay = (date: string) =>
  new Intl.DateTimeFormat(undefined, {
    timeZone: 'UTC',
    weekday: 'long',
    day: 'numeric',
    month: 'long'
  }).format(new Date(`${date}T00:00:00Z`))

export const formatDateTime = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat(undefined, { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(ms)
  )

/** The zone's name as people read it ("Central European Standard Time"), for the "times in …" note. */
export const zoneLabel = (timeZone: string) => {
  const part = new Intl.DateTimeFormat(undefined, { timeZone, timeZoneName: 'long' })
    .formatToParts(new Date())
    .find((p) => p.type === 'timeZoneName')
  return part ? `${part.value} (${timeZone})` : timeZone
}

/** Status words, as people say them. */
export const appointmentStatusLabel: Record<string, string> = {
  scheduled: 'Scheduled',
  'checked-in': 'Checked in',
  'in-progress': 'In progress',
  completed: 'Completed',
  cancelled: 'Cancelled',
  'no-show': 'Did not come'
}
