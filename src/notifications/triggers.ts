// The events that notify a patient, read from the app's `record.changed` (every service write and every change
// announced outside a call, src/events.ts), whose handlers finish before the write is answered — so a message is
// queued (src/notifications/queue.ts) before the call that caused it answers (but a cancellation's, written ahead
// of its write and confirmed in the background, see `confirmAhead`):
// - appointments: created → `appointment.booked`; a patch that leaves it `scheduled` with another start (a
//   reschedule) → `appointment.rescheduled` (once per new start); moved to `cancelled` → `appointment.cancelled`;
//   reminders still queued are skipped (`no-longer-due`) when it is cancelled, moved, checked in or a no-show;
// - queue items: moved to `called` (a PATCH or `$callNext`) → `queue.called`; whenever an item joins or leaves the
//   waiting, the queue's first `queueNextPosition` waiting items that were not told yet → `queue.next` (positions
//   are computed at read, never stored, so this is where they change);
// - medical records: a patch that finalizes one → `record.finalized` ("results are ready", a link; no contents);
// - billing invoices: finalized (directly, through its encounter, or by recovery) → `invoice.finalized` to the
//   billed patient (subject of type `patient` or `account`), with the totals and a link.
// Each once per recipient, channel and subject (the queue's unique key). A failure is logged, never thrown: the
// write stands. A process stop between the write and its trigger leaves the message unqueued: the reminder pass
// queues the booking and cancellation messages so cut off (`recoverAppointmentMessages`).
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import type { PendingChange, RecordChange } from '../events'
import { appSlot } from '../runtime'
import { orNull } from '../billing/store-calls'
import { faultPoint } from '../billing/fault'
import type { Stored } from '../store'
import type { Notification } from '../services/notifications/notifications.schema'
import type { NotificationEvent } from './events'
import { prepareNotification, queueNotification, writeNotification } from './queue'
import { markWriteAhead, settleAfterFailure } from './early'
import { notificationSettingsOf } from './settings'
import {
  appointmentVars,
  invoiceVars,
  knownOf,
  queueVars,
  recordVars,
  varsContext,
  type VarsContext
} from './vars'

type TriggerDeps = Pick<
  Deps,
  'stores' | 'settings' | 'clock' | 'announce' | 'locks' | 'providers' | 'logger' | 'inFlight'
>

const MINUTE = 60_000

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)
const num = (value: unknown) => (typeof value === 'number' ? value : undefined)

/** The document of a patch as it was before it (loaded by the access hooks of an external call), if known. */
const before = (change: PendingChange): Record<string, unknown> | undefined => {
  const existing: unknown = change.params?.existing
  return existing && typeof existing === 'object' ? (existing as Record<string, unknown>) : undefined
}

/** The ids among `ids` that already have a notification of `event` (any channel). */
export const alreadyNotified = async (
  deps: Pick<Deps, 'stores'>,
  event: NotificationEvent,
  ids: string[]
): Promise<Set<string>> => {
  if (ids.length === 0) return new Set()
  const found = await deps.stores.notifications._find({
    query: { 'ref.id': { $in: ids }, event, $select: ['ref'] },
    paginate: false
  })
  return new Set(found.map((n) => n.ref.id))
}

/**
 * Skips (`no-longer-due`) the reminders of `appointment` still queued, but those `keep` accepts: the appointment
 * was cancelled or moved. Each is a conditional update (still queued), announced.
 */
export const skipQueuedReminders = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'announce'>,
  appointment: string,
  keep: (notification: Stored<Notification>) => boolean = () => false
) => {
  const queued = await deps.stores.notifications._find({
    query: { 'ref.id': appointment, event: 'appointment.reminder', status: 'queued' },
    paginate: false
  })
  const skipped: Stored<Notification>[] = []
  for (const notification of queued.filter((n) => !keep(n))) {
    const now = deps.clock.now()
    const patched = await orNull(
      deps.stores.notifications._patch(
        notification.id,
        { status: 'skipped', reason: 'no-longer-due', nextAttemptAt: null, updatedAt: now },
        { query: { status: 'queued' } }
      )
    )
    if (patched) skipped.push(patched)
  }
  if (skipped.length) await deps.announce('notifications', 'patched', skipped)
  return skipped.length
}

const appointmentOf = (doc: Record<string, unknown>) => {
  const [id, facility, patient, provider, start, status] = [
    str(doc.id),
    str(doc.facility),
    str(doc.patient),
    str(doc.provider),
    num(doc.start),
    str(doc.status)
  ]
  return id && facility && patient && provider && start !== undefined && status
    ? { id, facility, patient, provider, start, status }
    : null
}

// The note `record.changing` leaves for the write's other events: a message written ahead (./early.ts).
const AHEAD = 'notifications.ahead'

interface WrittenAhead {
  event: NotificationEvent
  /** The appointment. */
  id: string
  /** The entries written (unconfirmed), or null when preparing or writing them failed. */
  written: Promise<Stored<Notification>[] | null>
  /** Ends the mark of the write as running (the worker leaves its entries alone meanwhile). */
  unmark: () => void
  /** What was read for them (the trigger of the write reads nothing twice). */
  context: VarsContext
}

// Two turns of the event loop: the write's own steps run in promise callbacks up to its commit, which the
// embedded engine issues on the next turn (src/store/engines/nedb/commit.ts); starting after it, the message's
// reads and rendering run while that commit is on its way to the disk instead of delaying it.
const afterWriteIssued = async () => {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve))
}

/**
 * Before a cancellation (`PATCH /appointments/:id { status: "cancelled" }`, the appointment as loaded by the access
 * hooks), its message is prepared and written, unconfirmed, while the appointment's write is being stored: the two
 * commits overlap (see ./early.ts). Not awaited here: the write goes on meanwhile.
 */
const writeAheadOnChanging = (deps: TriggerDeps, change: PendingChange) => {
  if (change.path !== 'appointments' || change.method !== 'patch' || change.notes.has(AHEAD)) return
  const data = change.data
  if (!data || typeof data !== 'object' || (data as { status?: unknown }).status !== 'cancelled') return
  const existing = before(change)
  const appointment = existing && appointmentOf(existing)
  if (!appointment || appointment.id !== String(change.id) || appointment.status === 'cancelled') return
  const unmark = markWriteAhead(deps, appointment.id)
  const context = varsContext(deps)
  const written = (async () => {
    await afterWriteIssued()
    const prepared = await prepareNotification(deps, {
      facility: appointment.facility,
      event: 'appointment.cancelled',
      recipient: appointment.patient,
      ref: { service: 'appointments', id: appointment.id },
      subjectKey: appointment.id,
      vars: await appointmentVars(context, appointment),
      known: await knownOf(context, appointment.facility, appointment.patient)
    })
    const entries = prepared ? await writeNotification(deps, prepared, { unconfirmed: true }) : []
    faultPoint('notifications.written-ahead')
    return entries
  })().catch(() => null)
  const ahead: WrittenAhead = { event: 'appointment.cancelled', id: appointment.id, written, unmark, context }
  change.notes.set(AHEAD, ahead)
}

/**
 * Confirms, in the background, the entries written ahead for `event` about appointment `id` (answers false, doing
 * nothing, when none were). The write is stored, so the call answers without waiting for them: their own commit
 * and sync, then their announcement (`created`, which also nudges the worker), or — writing them ahead failed —
 * the message queued the ordinary way by `queueInstead`. Safe to answer first: the appointment is the source of
 * truth. Entries a crash loses before their sync are either found unconfirmed (the worker sends them only once the
 * cancellation is stored) or missing, and the reminder pass's `recoverAppointmentMessages` queues a stored
 * cancellation's missing message; the once-only key under its lock (and the unique index) keeps it to one entry per
 * recipient and channel, so nothing is lost and nothing is sent twice. Tracked as work in flight (graceful shutdown
 * waits for it); a failure is logged, never thrown.
 */
const confirmAhead = (
  deps: TriggerDeps,
  change: RecordChange,
  event: NotificationEvent,
  id: string,
  queueInstead: () => Promise<unknown>
): boolean => {
  const ahead = change.notes.get(AHEAD) as WrittenAhead | undefined
  if (!ahead || ahead.event !== event || ahead.id !== id) return false
  change.notes.delete(AHEAD)
  deps.inFlight.begin()
  void (async () => {
    try {
      const written = await ahead.written
      faultPoint('notifications.before-confirm')
      // The write is stored: its entries may go (the worker is nudged by the announcement).
      ahead.unmark()
      if (written === null) await queueInstead()
      else if (written.length) await deps.announce('notifications', 'created', written)
    } catch (error) {
      deps.logger.warn(
        `Notifications of ${change.path} ${id} not confirmed: ${error instanceof Error ? error.message : 'unknown error'}`
      )
    } finally {
      // (in any case: what a failure left unconfirmed is the worker's to settle)
      ahead.unmark()
      deps.inFlight.end()
    }
  })()
  return true
}

/** The write ended without confirming what it wrote ahead (it failed, or stored something else): settled. */
const settleAhead = async (deps: TriggerDeps, change: PendingChange) => {
  const ahead = change.notes.get(AHEAD) as WrittenAhead | undefined
  if (!ahead) return
  change.notes.delete(AHEAD)
  try {
    const written = await ahead.written
    if (written?.length) await settleAfterFailure(deps, written)
  } catch (error) {
    deps.logger.warn(
      `Notifications written ahead of ${change.path} ${ahead.id} not settled: ${error instanceof Error ? error.message : 'unknown error'}`
    )
  } finally {
    ahead.unmark()
  }
}

const onAppointments = async (deps: TriggerDeps, context: VarsContext, change: RecordChange) => {
  for (const doc of change.docs) {
    const appointment = appointmentOf(doc)
    if (!appointment) continue
    const ref = { service: 'appointments', id: appointment.id }
    const notify = async (event: NotificationEvent, subjectKey: string) =>
      queueNotification(deps, {
        facility: appointment.facility,
        event,
        recipient: appointment.patient,
        ref,
        subjectKey,
        vars: await appointmentVars(context, appointment),
        known: await knownOf(context, appointment.facility, appointment.patient)
      })
    // Whether a reminder of the appointment at `start` may be queued by now: not before its largest offset.
    const mayHaveReminders = async (start: number | undefined) => {
      if (start === undefined) return true
      const { reminderOffsetsMinutes } = await context.settings(appointment.facility)
      const defaults = deps.settings.get('notifications').defaults.reminderOffsetsMinutes
      const horizon = Math.max(0, ...defaults, ...reminderOffsetsMinutes) * MINUTE
      return deps.clock.now() >= start - horizon
    }
    if (change.method === 'create') {
      if (appointment.status === 'scheduled') await notify('appointment.booked', appointment.id)
    } else if (change.method === 'patch') {
      if (appointment.status === 'cancelled') {
        if (await mayHaveReminders(appointment.start)) await skipQueuedReminders(deps, appointment.id)
        const queueIt = () => notify('appointment.cancelled', appointment.id)
        if (!confirmAhead(deps, change, 'appointment.cancelled', appointment.id, queueIt)) await queueIt()
      } else if (appointment.status === 'scheduled') {
        // The only patch that leaves an appointment scheduled is a reschedule; the same start is no news.
        const previous = num(before(change)?.start)
        if (previous === appointment.start) continue
        const current = `|${appointment.id}:${appointment.start}:`
        if (await mayHaveReminders(previous))
          await skipQueuedReminders(deps, appointment.id, (n) => n.dedupeKey.includes(current))
        await notify('appointment.rescheduled', `${appointment.id}:${appointment.start}`)
      } else if (appointment.status === 'checked-in' || appointment.status === 'no-show') {
        // Here (or past it): a reminder still waiting to go is no longer due.
        if (await mayHaveReminders(appointment.start)) await skipQueuedReminders(deps, appointment.id)
      }
    }
  }
}

const queueItemOf = (doc: Record<string, unknown>) => {
  const [id, queue, facility, patient, number, status] = [
    str(doc.id),
    str(doc.queue),
    str(doc.facility),
    str(doc.patient),
    num(doc.number),
    str(doc.status)
  ]
  return id && queue && facility && patient && number !== undefined && status
    ? { id, queue, facility, patient, number, status }
    : null
}

/** `queue.next` to the queue's first `queueNextPosition` waiting items not told yet. */
export const notifyNextInLine = async (
  deps: TriggerDeps,
  context: VarsContext,
  queue: string,
  facility: string
) => {
  const { queueNextPosition } = await notificationSettingsOf(deps, facility)
  const first = await deps.stores.queueItems._find({
    query: { queue, status: 'waiting', $sort: { day: 1, number: 1 }, $limit: queueNextPosition },
    paginate: false
  })
  const told = await alreadyNotified(
    deps,
    'queue.next',
    first.map((item) => item.id)
  )
  for (const [index, item] of first.entries()) {
    if (told.has(item.id)) continue
    await queueNotification(deps, {
      facility: item.facility,
      event: 'queue.next',
      recipient: item.patient,
      ref: { service: 'queue-items', id: item.id },
      subjectKey: item.id,
      vars: await queueVars(context, item, index + 1)
    })
  }
}

const onQueueItems = async (deps: TriggerDeps, context: VarsContext, change: RecordChange) => {
  // The queues whose waiting line changed: an item joined it (created) or left it (moved out of `waiting`).
  const lines = new Map<string, string>()
  for (const doc of change.docs) {
    const item = queueItemOf(doc)
    if (!item) continue
    if (change.method === 'create' && item.status === 'waiting') lines.set(item.queue, item.facility)
    if (change.method !== 'patch' || item.status === 'waiting') continue
    if (['called', 'skipped', 'cancelled'].includes(item.status) && before(change)?.status !== item.status)
      lines.set(item.queue, item.facility)
    if (item.status === 'called')
      await queueNotification(deps, {
        facility: item.facility,
        event: 'queue.called',
        recipient: item.patient,
        ref: { service: 'queue-items', id: item.id },
        subjectKey: item.id,
        vars: await queueVars(context, item)
      })
  }
  for (const [queue, facility] of lines) await notifyNextInLine(deps, context, queue, facility)
}

const onMedicalRecords = async (deps: TriggerDeps, context: VarsContext, change: RecordChange) => {
  if (change.method !== 'patch') return
  // Finalized by this patch: finalized now, not before it (a finalized record only takes permission changes).
  const finalized = change.docs.filter(
    (doc) => num(doc.finalizedAt) !== undefined && num(before(change)?.finalizedAt) === undefined
  )
  const told = await alreadyNotified(
    deps,
    'record.finalized',
    finalized.map((doc) => String(doc.id))
  )
  for (const doc of finalized) {
    const [id, facility, patient] = [str(doc.id), str(doc.facility), str(doc.patient)]
    // A record of no facility has no settings nor sender to tell its patient with.
    if (!id || !facility || !patient || told.has(id)) continue
    await queueNotification(deps, {
      facility,
      event: 'record.finalized',
      recipient: patient,
      ref: { service: 'medical-records', id },
      subjectKey: id,
      // Who, where and a link: never a field of the record.
      vars: await recordVars(context, { id, facility, patient })
    })
  }
}

/** The billed parties told of their invoices: the subject types that name an account. */
const PATIENT_SUBJECTS = ['patient', 'account']

const onInvoices = async (deps: TriggerDeps, context: VarsContext, change: RecordChange) => {
  const finalized = change.docs.filter(
    (doc) =>
      doc.status === 'finalized' &&
      before(change)?.status !== 'finalized' &&
      PATIENT_SUBJECTS.includes(String(doc.subjectType))
  )
  const told = await alreadyNotified(
    deps,
    'invoice.finalized',
    finalized.map((doc) => String(doc.id))
  )
  for (const doc of finalized) {
    const [id, facility, subject, currency] = [
      str(doc.id),
      str(doc.facility),
      str(doc.subject),
      str(doc.currency)
    ]
    const [total, balance] = [num(doc.total), num(doc.balance)]
    if (!id || !facility || !subject || !currency || total === undefined || balance === undefined) continue
    if (told.has(id)) continue
    await queueNotification(deps, {
      facility,
      event: 'invoice.finalized',
      recipient: subject,
      ref: { service: 'billing-invoices', id },
      subjectKey: id,
      vars: await invoiceVars(context, { id, facility, total, balance, currency }, subject)
    })
  }
}

const byPath: Record<
  string,
  (deps: TriggerDeps, context: VarsContext, change: RecordChange) => Promise<void>
> = {
  appointments: onAppointments,
  'queue-items': onQueueItems,
  'medical-records': onMedicalRecords,
  'billing-invoices': onInvoices
}

/** The `record.changed` subscriber: the notifications `change` causes, queued; a failure is logged, not thrown. */
export const notifyOnChange = async (deps: TriggerDeps, change: RecordChange) => {
  const handle = byPath[change.path]
  if (!handle || change.docs.length === 0) return
  const ahead = change.notes.get(AHEAD) as WrittenAhead | undefined
  try {
    await handle(deps, ahead?.context ?? varsContext(deps), change)
  } catch (error) {
    deps.logger.warn(
      `Notifications of a change of ${change.path} not queued: ${error instanceof Error ? error.message : 'unknown error'}`
    )
  }
}

// The subscription of this app (the bench measures a write with and without it).
const subscriptionSlot = appSlot<(() => void) | null>('notification triggers')

/** Subscribes (or, with `enabled` false, unsubscribes) the triggers of `app`. */
export const notificationTriggers = (app: Application, deps: Deps, enabled = true) => {
  subscriptionSlot.get(app)?.()
  if (!enabled) {
    subscriptionSlot.set(app, null)
    return
  }
  const offChanging = deps.events.on('record.changing', (change) => {
    // (a message is never worth refusing a write: one not written ahead is queued by the write's trigger)
    try {
      writeAheadOnChanging(deps, change)
    } catch (error) {
      deps.logger.warn(
        `Notification not written ahead: ${error instanceof Error ? error.message : 'unknown error'}`
      )
    }
  })
  const offChanged = deps.events.on('record.changed', async (change) => {
    await notifyOnChange(deps, change)
    // (what the trigger did not confirm: a cancellation that stored something else)
    await settleAhead(deps, change)
  })
  const offFailed = deps.events.on('record.failed', (change) => settleAhead(deps, change))
  subscriptionSlot.set(app, () => {
    offChanging()
    offChanged()
    offFailed()
  })
}

// The recovery of appointment messages a crash cut off (see above): the appointments changed within this window,
// up to a minute ago (a trigger in flight finishes in milliseconds), are compared with the log.
const RECOVERY_WINDOW_MS = 60 * MINUTE
const RECOVERY_GRACE_MS = MINUTE

/**
 * Queues the `appointment.booked` and `appointment.cancelled` messages missing for appointments changed in the last
 * hour — those a process stop between the write and its trigger left unqueued. (A booking is known by its
 * `updatedAt` still being its `scheduledAt`; a reschedule leaves no trace of the start it replaced, so a lost
 * `appointment.rescheduled` is not recovered.) Answers how many appointments it told.
 */
export const recoverAppointmentMessages = async (deps: TriggerDeps): Promise<number> => {
  const now = deps.clock.now()
  const changed = (
    await deps.stores.appointments._find({
      query: {
        updatedAt: { $gte: now - RECOVERY_WINDOW_MS, $lte: now - RECOVERY_GRACE_MS },
        status: { $in: ['scheduled', 'cancelled'] },
        $limit: 1000
      },
      paginate: false
    })
  ).filter((a) => a.status === 'cancelled' || a.updatedAt === a.scheduledAt)
  if (changed.length === 0) return 0
  const told = new Set(
    (
      await deps.stores.notifications._find({
        query: {
          'ref.id': { $in: changed.map((a) => a.id) },
          event: { $in: ['appointment.booked', 'appointment.cancelled'] },
          $select: ['ref', 'event']
        },
        paginate: false
      })
    ).map((n) => `${n.event} ${n.ref.id}`)
  )
  const context = varsContext(deps)
  let recovered = 0
  for (const appointment of changed) {
    const event = appointment.status === 'cancelled' ? 'appointment.cancelled' : 'appointment.booked'
    if (told.has(`${event} ${appointment.id}`)) continue
    try {
      if (event === 'appointment.cancelled') await skipQueuedReminders(deps, appointment.id)
      const written = await queueNotification(deps, {
        facility: appointment.facility,
        event,
        recipient: appointment.patient,
        ref: { service: 'appointments', id: appointment.id },
        subjectKey: appointment.id,
        vars: await appointmentVars(context, appointment)
      })
      if (written.length) recovered++
    } catch (error) {
      deps.logger.warn(
        `Notification of appointment ${appointment.id} not recovered: ${error instanceof Error ? error.message : 'unknown error'}`
      )
    }
  }
  return recovered
}
