// Queueing a notification: one document per recipient, channel and subject (`dedupeKey`, unique), written before
// the call that caused it answers (or by the reminder pass), so nothing is lost on a crash; the delivery worker
// (src/notifications/worker.ts) sends it later. Each channel of the event is decided here:
// - the facility has the channel off → `skipped` (`channel-off`);
// - the account opted out of it (`notifications.<channel>: false`) → `skipped` (`opted-out`);
// - the account has no address for it → `skipped` (`no-address`);
// - otherwise `queued`, due at `dueAt` (default now) moved past the facility's quiet hours (`quiet-hours-wait`).
// The once-only rule is a check-then-create under a lock of the key (in process and, with REDIS_URL, across
// instances), backed by a unique index on `dedupeKey`.
// The message is rendered now (the facility's template or the built-in one) and kept on the server; clients read
// only the log's metadata, with the address masked. An email's variables also hold `unsubscribeLink`, the
// recipient's signed one-click link (src/notifications/unsubscribe.ts).
import { Conflict } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { orNull } from '../billing/store-calls'
import type { Notification } from '../services/notifications/notifications.schema'
import { afterQuietHours } from '../appointments/zone'
import { facilityTimeZone } from '../appointments/schedules'
import { notificationChannels, type NotificationChannel, type NotificationEvent } from './events'
import { notificationSettingsOf } from './settings'
import { renderNotification } from './render'
import { unsubscribeLink } from './unsubscribe'

export interface NotificationRequest {
  facility: string
  event: NotificationEvent
  /** The account told. */
  recipient: string
  /** What it is about. */
  ref: { service: string; id: string }
  /** Makes it once per recipient and channel: the same event about the same subject is queued once (e.g. the
   *  appointment id and its start, or the queue item id). */
  subjectKey: string
  /** The template's variables. */
  vars: Record<string, unknown>
  /** When it should go (default: now). */
  dueAt?: number
  /** A message that must not wait past this instant (a reminder: the appointment's start). */
  latestAt?: number
}

/** `ada@example.org` → `a***@example.org`. */
export const maskEmail = (email: string) => {
  const at = email.lastIndexOf('@')
  return at <= 0 ? '***' : `${email[0]}***${email.slice(at)}`
}

/** `+63 917 123 4567` → `+63*****4567` (the country code and the last four digits). */
export const maskPhone = (phone: string) => {
  const digits = phone.replace(/[^0-9+]/g, '')
  const head = digits.startsWith('+') ? digits.slice(0, 3) : ''
  return `${head}*****${digits.slice(-4)}`
}

type StoredNotification = Stored<Notification>

/**
 * Queues `request` on every channel (see above); answers the notifications written (none for a subject already
 * queued). They are announced (`created`) to their readers.
 */
export const queueNotification = async (
  deps: Pick<Deps, 'stores' | 'settings' | 'clock' | 'announce' | 'locks' | 'providers'>,
  request: NotificationRequest
): Promise<StoredNotification[]> => {
  const account = await orNull(deps.stores.accounts._get(request.recipient))
  if (!account) return []
  const settings = await notificationSettingsOf(deps, request.facility)
  const zone = await facilityTimeZone(deps, request.facility)
  const now = deps.clock.now()
  const locale = 'en'
  const optOut: Partial<Record<NotificationChannel, boolean>> | undefined = account.notifications
  // The channels' entries are written at once: on the embedded engine they share one durable commit, which is
  // most of what a trigger costs the write that caused it.
  const queueOn = async (channel: NotificationChannel): Promise<StoredNotification | null> => {
    const address = channel === 'email' ? account.email : account.mobileNo
    const to = address ? (channel === 'email' ? maskEmail(address) : maskPhone(address)) : null
    let status: Notification['status'] = 'queued'
    let reason: string | undefined
    let nextAttemptAt: number | null = Math.max(request.dueAt ?? now, now)
    if (!settings.channels[channel]) [status, reason] = ['skipped', 'channel-off']
    else if (optOut?.[channel] === false) [status, reason] = ['skipped', 'opted-out']
    else if (!address) [status, reason] = ['skipped', 'no-address']
    else if (settings.quietHours) {
      const after = afterQuietHours(nextAttemptAt, zone, settings.quietHours.start, settings.quietHours.end)
      // A message with a deadline (a reminder) never waits past it: it goes at once instead.
      if (after > nextAttemptAt && (request.latestAt === undefined || after < request.latestAt)) {
        nextAttemptAt = after
        reason = 'quiet-hours-wait'
      }
    }
    if (status === 'skipped') nextAttemptAt = null
    const rendered = await renderNotification(deps, {
      facility: request.facility,
      event: request.event,
      channel,
      locale,
      vars:
        channel === 'email'
          ? { ...request.vars, unsubscribeLink: unsubscribeLink(deps, request.recipient) }
          : request.vars
    })
    const dedupeKey = `${request.event}|${channel}|${request.recipient}|${request.subjectKey}`
    try {
      const doc = await deps.locks.exclusive(`notification:${dedupeKey}`, async () => {
        const [queued] = await deps.stores.notifications._find({
          query: { dedupeKey, $limit: 1, $select: ['id'] },
          paginate: false
        })
        if (queued) return null
        return deps.stores.notifications._create({
          facility: request.facility,
          event: request.event,
          channel,
          recipient: request.recipient,
          to,
          status,
          ...(reason ? { reason } : {}),
          attempts: 0,
          nextAttemptAt,
          sentAt: null,
          ref: request.ref,
          locale,
          dedupeKey,
          ...(rendered.subject !== undefined ? { subject: rendered.subject } : {}),
          body: rendered.body,
          leaseUntil: null,
          leaseHolder: null,
          createdAt: now,
          createdBy: null,
          updatedAt: now
        })
      })
      return doc
    } catch (error) {
      // Queued already (the same event about the same subject): once is enough.
      if (!(error instanceof Conflict)) throw error
      return null
    }
  }
  const outcomes = await Promise.allSettled(notificationChannels.map(queueOn))
  const written = outcomes.flatMap((outcome) =>
    outcome.status === 'fulfilled' && outcome.value ? [outcome.value] : []
  )
  // What was written is announced (as one change) even when another channel failed (then the failure is thrown).
  if (written.length) await deps.announce('notifications', 'created', written)
  const failed = outcomes.find((outcome) => outcome.status === 'rejected')
  if (failed) throw failed.reason
  return written
}
