// Messages written ahead of their change. A cancellation's message (`appointment.cancelled`) is prepared and
// written while the appointment's own write is being stored (on the write's `record.changing`), so the two commits
// run at the same time instead of one after the other; on the embedded engine that halves what the message costs
// the PATCH. Such entries are marked `unconfirmed` until their change is known to be stored:
// - the write succeeded (`record.changed`): the trigger announces them (`created`), as any queued message — in
//   the background: the call answers without waiting for their commit (src/notifications/triggers.ts says why no
//   message is lost or sent twice so);
// - the write failed (`record.failed`): they are removed — unless the appointment is cancelled all the same (a
//   concurrent cancellation was stored; its own trigger found these entries and wrote none), then announced;
// - the process stopped in between: the delivery worker finds them and asks the appointment (below).
// The worker never sends an unconfirmed entry while its write runs in this process (the registry below), and
// otherwise only once the appointment is cancelled as stored; one whose cancellation was never stored is removed
// (on a shared engine, once older than a minute: another instance's write may still be running). Each entry
// keeps its `dedupeKey`, so it is once per recipient, channel and subject like every other.
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { appSlot } from '../runtime'
import { orNull } from '../billing/store-calls'
import type { Notification } from '../services/notifications/notifications.schema'
import { underKeyLocks } from './queue'

type StoredNotification = Stored<Notification>

/** How long another instance's write may take before its unconfirmed entries count as left by a crash. */
export const UNCONFIRMED_GRACE_MS = 60_000

// The subjects (appointment ids) whose write, with entries written ahead, runs in this process now: a count per
// subject (two writes of one appointment may run at once). Kept with the app's stores (the app's own object).
const inFlightSlot = appSlot<Map<string, number>>('notifications written ahead, in flight')

const inFlight = (deps: Pick<Deps, 'stores'>) => inFlightSlot.ensure(deps.stores, () => new Map())

/** Marks `subject`'s write as running (its entries may be written ahead); answers the unmark. */
export const markWriteAhead = (deps: Pick<Deps, 'stores'>, subject: string) => {
  const running = inFlight(deps)
  running.set(subject, (running.get(subject) ?? 0) + 1)
  let done = false
  return () => {
    if (done) return
    done = true
    const left = (running.get(subject) ?? 1) - 1
    if (left > 0) running.set(subject, left)
    else running.delete(subject)
  }
}

/** Whether the change an entry written ahead tells of is stored: its appointment is cancelled. */
export const changeStored = async (deps: Pick<Deps, 'stores'>, notification: StoredNotification) => {
  if (notification.event !== 'appointment.cancelled') return true
  const appointment = await orNull(deps.stores.appointments._get(notification.ref.id))
  return appointment?.status === 'cancelled'
}

/**
 * What the worker does with an unconfirmed entry: `send` (its change is stored), `wait` (its write may still be
 * running) or `drop` (it never was stored).
 */
export const settleUnconfirmed = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  notification: StoredNotification,
  shared: boolean
): Promise<'send' | 'wait' | 'drop'> => {
  if (inFlight(deps).has(notification.ref.id)) return 'wait'
  if (await changeStored(deps, notification)) return 'send'
  if (shared && notification.createdAt > deps.clock.now() - UNCONFIRMED_GRACE_MS) return 'wait'
  return 'drop'
}

/** Removes an unconfirmed entry whose change was never stored (still queued and unconfirmed only). */
export const dropUnconfirmed = async (deps: Pick<Deps, 'stores'>, notification: StoredNotification) =>
  orNull(
    deps.stores.notifications._remove(notification.id, {
      query: { status: 'queued', unconfirmed: true }
    })
  )

/**
 * After a failed write: the entries it wrote ahead are removed, under their keys' locks, unless their change is
 * stored all the same (then they are announced, as their trigger would have).
 */
export const settleAfterFailure = async (
  deps: Pick<Deps, 'stores' | 'announce' | 'locks'>,
  written: StoredNotification[]
) => {
  if (written.length === 0) return
  const kept = await underKeyLocks(
    deps,
    written.map((n) => n.dedupeKey),
    async () => {
      if (await changeStored(deps, written[0])) return true
      for (const notification of written) await dropUnconfirmed(deps, notification)
      return false
    }
  )
  if (kept) await deps.announce('notifications', 'created', written)
}
