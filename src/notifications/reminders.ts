// Appointment reminders: a time-driven pass (on the one clock, deps.clock) that queues `appointment.reminder` for
// each `scheduled` appointment at the facility's `reminderOffsetsMinutes` before its start. Rules:
// - an offset is due once now ≥ start − offset, and never at or after start (no late reminder);
// - an offset already past when the appointment got its time (start − offset < createdAt, or < the time of its
//   last reschedule: a scheduled appointment is only ever updated by a reschedule, so `updatedAt`) is skipped;
// - when several offsets are due at once (the pass did not run for a while, the sandbox clock jumped), only the
//   latest due one (the smallest offset) is sent — never a stale one;
// - once per appointment, start and offset (subjectKey `<id>:<start>:<offset>`): a reschedule gets new reminders
//   (and the trigger skips the queued ones of the old start), a cancellation skips the queued ones;
// - `latestAt` is the start: quiet hours never hold a reminder past the appointment.
// Only appointments starting within the largest offset from now are read (the store's { status, start } index),
// a page at a time, with what was queued already looked up per page.
import type { Deps } from '../deps'
import type { Stored } from '../store'
import type { Appointment } from '../services/appointments/appointments.schema'
import { notificationChannels } from './events'
import { queueNotification } from './queue'
import { notificationSettingsOf, type NotificationSettings } from './settings'
import { knownOf, appointmentVars, varsContext } from './vars'

const MINUTE = 60_000
const PAGE = 500
const PARALLEL = 8

/** The subject of one reminder: the appointment, its start and the offset. */
export const reminderKey = (appointment: { id: string; start: number }, offsetMinutes: number) =>
  `${appointment.id}:${appointment.start}:${offsetMinutes}`

/**
 * The offset (minutes) whose reminder is due for `appointment` at `now`: the smallest offset already reached that
 * was still ahead when the appointment got its time; null when none is (or the appointment has started).
 */
export const dueReminderOffset = (
  appointment: { start: number; createdAt: number; updatedAt?: number | null },
  offsetsMinutes: number[],
  now: number
): number | null => {
  if (now >= appointment.start) return null
  const gotItsTime = Math.max(appointment.createdAt, appointment.updatedAt ?? 0)
  const due = offsetsMinutes.filter((offset) => {
    const at = appointment.start - offset * MINUTE
    return at >= gotItsTime && now >= at
  })
  return due.length ? Math.min(...due) : null
}

/** How far ahead the pass looks: the largest reminder offset in effect (minutes) — the configured defaults' and
 *  every facility's own (its stored notification settings), so no facility's earliest reminder is missed. */
export const reminderHorizonMinutes = async (deps: Pick<Deps, 'settings' | 'stores'>) => {
  const stored = await deps.stores.notificationSettings._find({
    query: { $select: ['reminderOffsetsMinutes'] },
    paginate: false
  })
  return Math.max(
    0,
    ...deps.settings.get('notifications').defaults.reminderOffsetsMinutes,
    ...stored.flatMap((settings) => settings.reminderOffsetsMinutes ?? [])
  )
}

/** One pass: queues every due reminder; answers how many appointments were reminded. */
export const reminderPass = async (
  deps: Pick<Deps, 'stores' | 'settings' | 'clock' | 'announce' | 'locks' | 'providers' | 'logger'>
): Promise<number> => {
  const now = deps.clock.now()
  const horizon = (await reminderHorizonMinutes(deps)) * MINUTE
  const context = varsContext(deps)
  const settingsOf = new Map<string, Promise<NotificationSettings>>()
  const facilitySettings = (facility: string) => {
    let settings = settingsOf.get(facility)
    if (!settings) settingsOf.set(facility, (settings = notificationSettingsOf(deps, facility)))
    return settings
  }
  let reminded = 0
  for (let skip = 0; ; skip += PAGE) {
    const page: Stored<Appointment>[] = await deps.stores.appointments._find({
      query: {
        status: 'scheduled',
        start: { $gt: now, $lte: now + horizon },
        $sort: { start: 1, id: 1 },
        $skip: skip,
        $limit: PAGE
      },
      paginate: false
    })
    const due: { appointment: Stored<Appointment>; offset: number }[] = []
    for (const appointment of page) {
      const { reminderOffsetsMinutes } = await facilitySettings(appointment.facility)
      const offset = dueReminderOffset(appointment, reminderOffsetsMinutes, now)
      if (offset !== null) due.push({ appointment, offset })
    }
    // What is queued already (every channel of a subject written: nothing to do).
    const queued = new Map<string, number>()
    if (due.length)
      for (const n of await deps.stores.notifications._find({
        query: {
          'ref.id': { $in: due.map((d) => d.appointment.id) },
          event: 'appointment.reminder',
          $select: ['dedupeKey']
        },
        paginate: false
      })) {
        const subject = n.dedupeKey.slice(n.dedupeKey.lastIndexOf('|') + 1)
        queued.set(subject, (queued.get(subject) ?? 0) + 1)
      }
    const todo = due.filter(
      ({ appointment, offset }) =>
        (queued.get(reminderKey(appointment, offset)) ?? 0) < notificationChannels.length
    )
    // A few at a time: each is a handful of reads and writes of its own (its subject's lock keeps it once).
    for (let at = 0; at < todo.length; at += PARALLEL) {
      const written = await Promise.all(
        todo.slice(at, at + PARALLEL).map(async ({ appointment, offset }) => {
          try {
            return await queueNotification(deps, {
              facility: appointment.facility,
              event: 'appointment.reminder',
              recipient: appointment.patient,
              ref: { service: 'appointments', id: appointment.id },
              subjectKey: reminderKey(appointment, offset),
              vars: await appointmentVars(context, appointment),
              dueAt: now,
              latestAt: appointment.start,
              known: await knownOf(context, appointment.facility, appointment.patient)
            })
          } catch (error) {
            // One appointment's failure (its facility's template, say) is logged; the others still go.
            deps.logger.warn(
              `Reminder of appointment ${appointment.id} not queued: ${error instanceof Error ? error.message : 'unknown error'}`
            )
            return []
          }
        })
      )
      reminded += written.filter((list) => list.length > 0).length
    }
    if (page.length < PAGE) break
  }
  return reminded
}
