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

/**
 * Queues `request` on every channel (see above); answers the notifications written (none for a subject already
 * queued). They are announced (`created`) to their readers, as one change. A skipped channel's entry carries no
 * message (nothing is rendered for it). The channels' entries are written in one store call: on the embedded
 * engine they share one durable commit, which is most of what a trigger costs the write that caused it.
 */
export const queueNotification = async (
  deps: Pick<Deps, 'stores' | 'settings' | 'clock' | 'announce' | 'locks' | 'providers'>,
  request: NotificationRequest
): Promise<StoredNotification[]> => {
  const { known = {} } = request
  const [account, organization, settings] = await Promise.all([
    known.account !== undefined ? known.account : orNull(deps.stores.accounts._get(request.recipient)),
    known.organization !== undefined
      ? known.organization
      : orNull(deps.stores.organizations._get(request.facility)),
    known.settings ?? notificationSettingsOf(deps, request.facility)
  ])
  if (!account) return []
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

  const toDoc = (plan: (typeof plans)[number]) => {
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
  }
  // Under the locks of every channel's key (taken in one order, so two callers never wait on each other): one
  // look for the keys already queued, one write of the missing entries.
  const keys = plans.map((plan) => plan.dedupeKey).sort()
  const underLocks = (
    at: number,
    task: () => Promise<StoredNotification[]>
  ): Promise<StoredNotification[]> =>
    at === keys.length
      ? task()
      : deps.locks.exclusive(`notification:${keys[at]}`, () => underLocks(at + 1, task))
  const written = await underLocks(0, async () => {
    const queued = await deps.stores.notifications._find({
      query: { dedupeKey: { $in: keys }, $select: ['dedupeKey'] },
      paginate: false
    })
    const have = new Set(queued.map((doc) => doc.dedupeKey))
    const docs = plans.filter((plan) => !have.has(plan.dedupeKey)).map(toDoc)
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
  if (written.length) await deps.announce('notifications', 'created', written)
  return written
}
