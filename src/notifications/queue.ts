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
import { notificationChannels, type NotificationChannel, type NotificationEvent } from './events'
import { notificationSettingsOf, type NotificationSettings } from './settings'
import { templatesFor } from './render'
import { renderTemplate } from './templates'
import type { Account } from '../services/accounts/accounts.schema'
import type { Organization } from '../services/organizations/organizations.schema'
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
  /** What the caller read already (the recipient's account, the facility, its settings), so nothing is read twice. */
  known?: {
    account?: Stored<Account> | null
    organization?: Stored<Organization> | null
    settings?: NotificationSettings
  }
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

/** A notification made ready to write (`prepareNotification`): the entry of every channel, rendered. */
export interface PreparedNotification {
  /** The entries, one per channel (their `createdAt`/`updatedAt` are set when written). */
  docs: Omit<Notification, 'id'>[]
}

/**
 * Reads what `request` needs (the recipient's account, the facility, its settings and templates), decides each
 * channel (see above) and renders the message of each channel that will be sent; null when the recipient has no
 * account. Nothing is written (`writeNotification` writes it), so a trigger may prepare while the write that
 * causes the notification is still being stored.
 */
export const prepareNotification = async (
  deps: Pick<Deps, 'stores' | 'settings' | 'clock' | 'providers'>,
  request: NotificationRequest
): Promise<PreparedNotification | null> => {
  const { known = {} } = request
  const [account, organization, settings] = await Promise.all([
    known.account !== undefined ? known.account : orNull(deps.stores.accounts._get(request.recipient)),
    known.organization !== undefined
      ? known.organization
      : orNull(deps.stores.organizations._get(request.facility)),
    known.settings ?? notificationSettingsOf(deps, request.facility)
  ])
  if (!account) return null
  const zone = organization?.timeZone ?? 'UTC'
  const now = deps.clock.now()
  const locale = 'en'
  const optOut: Partial<Record<NotificationChannel, boolean>> | undefined = account.notifications
  const plans = notificationChannels.map((channel) => {
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
    const dedupeKey = `${request.event}|${channel}|${request.recipient}|${request.subjectKey}`
    return { channel, to, status, reason, nextAttemptAt, dedupeKey }
  })
  const sending = plans.filter((plan) => plan.status === 'queued').map((plan) => plan.channel)
  const templates = sending.length
    ? await templatesFor(deps, { facility: request.facility, event: request.event, locale }, sending)
    : new Map<NotificationChannel, { subject?: string; body: string }>()

  const docs = plans.map((plan): Omit<Notification, 'id'> => {
    const template = templates.get(plan.channel)
    const rendered = template
      ? renderTemplate(
          template,
          plan.channel === 'email'
            ? { ...request.vars, unsubscribeLink: unsubscribeLink(deps, request.recipient) }
            : request.vars
        )
      : { body: '' }
    return {
      facility: request.facility,
      event: request.event,
      channel: plan.channel,
      recipient: request.recipient,
      to: plan.to,
      status: plan.status,
      ...(plan.reason ? { reason: plan.reason } : {}),
      attempts: 0,
      nextAttemptAt: plan.nextAttemptAt,
      sentAt: null,
      ref: request.ref,
      locale,
      dedupeKey: plan.dedupeKey,
      ...(rendered.subject !== undefined ? { subject: rendered.subject } : {}),
      body: rendered.body,
      leaseUntil: null,
      leaseHolder: null,
      createdAt: now,
      createdBy: null,
      updatedAt: now
    }
  })
  return { docs }
}

/** Runs `task` holding the locks of `keys` (taken in one order, so two callers never wait on each other). */
export const underKeyLocks = <T>(
  deps: Pick<Deps, 'locks'>,
  keys: string[],
  task: () => Promise<T>
): Promise<T> => {
  const sorted = [...keys].sort()
  const from = (at: number): Promise<T> =>
    at === sorted.length ? task() : deps.locks.exclusive(`notification:${sorted[at]}`, () => from(at + 1))
  return from(0)
}

/**
 * Writes a prepared notification: the entries of the channels not queued yet (none for a subject already queued).
 * Under the locks of every channel's key: one look for the keys already queued, one store call writing the missing
 * entries (on the embedded engine they share one durable commit). They are announced (`created`) to their readers
 * as one change — unless `unconfirmed`: entries written while the change they tell of is still being stored are
 * marked so (the worker sends them only once that change is known to be stored) and announced by their trigger.
 */
export const writeNotification = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'announce' | 'locks'>,
  prepared: PreparedNotification,
  options: { unconfirmed?: boolean } = {}
): Promise<StoredNotification[]> => {
  const keys = prepared.docs.map((doc) => doc.dedupeKey)
  const written = await underKeyLocks(deps, keys, async () => {
    const queued = await deps.stores.notifications._find({
      query: { dedupeKey: { $in: keys }, $select: ['dedupeKey'] },
      paginate: false
    })
    const have = new Set(queued.map((doc) => doc.dedupeKey))
    const now = deps.clock.now()
    const docs = prepared.docs
      .filter((doc) => !have.has(doc.dedupeKey))
      .map((doc) => ({
        ...doc,
        createdAt: now,
        updatedAt: now,
        ...(options.unconfirmed ? { unconfirmed: true } : {})
      }))
    if (docs.length === 0) return []
    try {
      return await deps.stores.notifications._create(docs)
    } catch (error) {
      if (!(error instanceof Conflict)) throw error
      // Queued meanwhile without these locks (a unique-index conflict: the same event about the same subject):
      // each entry on its own, the queued ones left as they are.
      const one = await Promise.all(
        docs.map((doc) =>
          deps.stores.notifications._create(doc).catch((failure: unknown) => {
            if (failure instanceof Conflict) return null
            throw failure
          })
        )
      )
      return one.filter((doc): doc is StoredNotification => doc !== null)
    }
  })
  if (written.length && !options.unconfirmed) await deps.announce('notifications', 'created', written)
  return written
}

/**
 * Queues `request` on every channel (see above): `prepareNotification`, then `writeNotification`. Answers the
 * notifications written (none for a subject already queued, or a recipient without an account). A skipped
 * channel's entry carries no message (nothing is rendered for it).
 */
export const queueNotification = async (
  deps: Pick<Deps, 'stores' | 'settings' | 'clock' | 'announce' | 'locks' | 'providers'>,
  request: NotificationRequest
): Promise<StoredNotification[]> => {
  const prepared = await prepareNotification(deps, request)
  return prepared ? writeNotification(deps, prepared) : []
}
