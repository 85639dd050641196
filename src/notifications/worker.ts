// The notification delivery worker. Queued notifications are documents (src/notifications/queue.ts); every instance
// runs a worker, and they share the work through the datastore only:
// - It looks for `queued` notifications due (`nextAttemptAt <= now`, the app's clock) every
//   `notifications.pollIntervalMs`, and at once when this process queued one. At start it looks at once, so what
//   fell due while the server was down goes out then.
// - Each is claimed with a lease: an atomic conditional patch that succeeds only while it is queued and its lease
//   is free or expired (`leaseUntil`), naming this worker (`leaseHolder`); every outcome is written only while this
//   worker still holds it. So no two workers send one notification at once, and a lease left by a crash expires
//   (`notifications.leaseMs`) and the notification is claimed again: never lost.
// - At send time the recipient's account is read again: an account that opted out meanwhile → `skipped`
//   (`opted-out`); no address any more → `skipped` (`no-address`); the facility turned the channel off →
//   `skipped` (`channel-off`).
// - The facility's rate (`notifications.ratePerMinute`, across instances with Redis): a message over it waits
//   (stays queued, `nextAttemptAt` moved), never dropped.
// - Sent: `sent`, `sentAt`. A provider error: `attempts + 1`, the error as `reason`, retried after
//   `retryDelaysMs[attempts - 1]` (the last repeats) until `maxAttempts`, then `failed` with the reason.
// - At least once: a crash between the provider's acceptance and the `sent` write sends it again once the lease
//   expired. Both sends carry the same key (email `Message-ID: <notification-id@host>`, SMS `idempotencyKey`), so
//   the receiving side can drop the copy.
// - An entry written ahead of its change (`unconfirmed`, src/notifications/early.ts) goes only once that change is
//   known to be stored; one whose change never was is removed.
// Every change is announced (`patched`) to the log's readers.
import os from 'node:os'
import { randomBytes } from 'node:crypto'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import type { Messenger } from '../providers/messaging'
import { orNull } from '../billing/store-calls'
import type { Notification } from '../services/notifications/notifications.schema'
import { notificationSettingsOf } from './settings'
import { maskEmail, maskPhone } from './queue'
import type { RateGate } from './rate'
import type { NotificationChannel } from './events'
import { unsubscribeLink } from './unsubscribe'
import { dropUnconfirmed, settleUnconfirmed } from './early'
import { PollLoop } from '../jobs/poll-loop'

export type NotificationWorkerDeps = Pick<
  Deps,
  'stores' | 'settings' | 'clock' | 'events' | 'logger' | 'announce' | 'providers'
>

type StoredNotification = Stored<Notification>

export interface NotificationWorkerOptions {
  messenger: Messenger
  rate: RateGate
  /** The engine is shared with other instances (MongoDB): leases of a previous run are left to expire. */
  shared: boolean
}

/** Sends in flight per process. */
const CONCURRENCY = 8
// How long stop() lets sends in flight finish before leaving them to their leases.
const STOP_GRACE_MS = 5000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.())

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 500)

export class NotificationWorker {
  readonly id = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  private readonly inflight = new Map<string, Promise<void>>()
  private readonly loop: PollLoop
  private running = false
  /** Bumped by every start: a send stop() stopped waiting for belongs to an earlier run, and its late outcome is
   *  left to its lease (not recorded by this run). */
  private run = 0
  private unsubscribe?: () => void

  constructor(
    private readonly deps: NotificationWorkerDeps,
    private readonly options: NotificationWorkerOptions
  ) {
    this.loop = new PollLoop({
      tick: () => this.tick(),
      intervalMs: () => this.settings.pollIntervalMs,
      now: () => this.now(),
      onError: (error) => this.deps.logger.error('Notification worker poll failed:', error)
    })
  }

  private now() {
    return this.deps.clock.now()
  }

  private get settings() {
    return this.deps.settings.get('notifications')
  }

  /** Starts looking for due notifications; one look at once (what a stop or a crash left). */
  async start() {
    if (this.running) return
    this.running = true
    this.run++
    this.inflight.clear()
    // Notifications queued in this process are looked at at once.
    this.unsubscribe = this.deps.events.on('record.changed', (change) => {
      if (change.path === 'notifications' && change.docs.some((doc) => doc.status === 'queued')) this.nudge()
    })
    // On the embedded engine this process owns the data: a lease left by a crash is nobody's, released now.
    if (!this.options.shared)
      await this.deps.stores.notifications._patch(
        null,
        { leaseUntil: null, leaseHolder: null },
        { query: { status: 'queued', leaseUntil: { $gt: 0 } }, adapter: { multi: true } }
      )
    if (this.running) this.loop.start()
  }

  /** Stops looking and waits (a few seconds at most, never past `maxWaitMs`) for sends in flight. */
  async stop(maxWaitMs = STOP_GRACE_MS) {
    this.running = false
    this.unsubscribe?.()
    this.unsubscribe = undefined
    await this.loop.stop()
    await Promise.race([
      Promise.allSettled([...this.inflight.values()]),
      sleep(Math.min(maxWaitMs, STOP_GRACE_MS))
    ])
  }

  /** Something may be due: look now rather than at the next poll. */
  nudge() {
    if (this.running) this.loop.nudge()
  }

  /** Sends in flight in this process. */
  get active() {
    return this.inflight.size
  }

  /** Looks again at `at` when that is before the next poll (a retry or a message held by the rate). */
  private wakeAt(at: number) {
    this.loop.wakeAt(at)
  }

  private async tick() {
    for (let round = 0; round < 50 && this.running; round++) {
      const free = CONCURRENCY - this.inflight.size
      if (free <= 0) return
      const now = this.now()
      const busy = [...this.inflight.keys()]
      const limit = free * 2
      const due: StoredNotification[] = await this.deps.stores.notifications._find({
        query: {
          status: 'queued',
          nextAttemptAt: { $lte: now },
          $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }],
          ...(busy.length ? { id: { $nin: busy } } : {}),
          $sort: { nextAttemptAt: 1 },
          $limit: limit
        },
        paginate: false
      })
      // As many claims as there are free slots, at once (each is a durable write: one after the other, they were
      // what held the sending rate down); the rest of the page in the next round.
      if (!this.running) return
      const claimed = await Promise.all(
        due.slice(0, free).map(async (notification) => {
          if (notification.unconfirmed && !(await this.confirmed(notification))) return null
          return this.claim(notification, now)
        })
      )
      let launched = 0
      for (const notification of claimed) {
        if (!notification) continue
        launched++
        this.launch(notification)
      }
      if (due.length <= free || launched === 0) return
    }
  }

  /**
   * Whether an entry written ahead of its change (./early.ts) may go: its change is stored. One whose write is still
   * running waits (left as it is); one whose change was never stored is removed.
   */
  private async confirmed(notification: StoredNotification) {
    const verdict = await settleUnconfirmed(this.deps, notification, this.options.shared)
    if (verdict === 'drop') {
      await dropUnconfirmed(this.deps, notification)
      this.deps.logger.info(`Notification ${notification.id} dropped: the change it told of was not stored`)
    }
    return verdict === 'send'
  }

  /** The lease on `notification`, or null when another worker holds it (or it is no longer queued and due). */
  private async claim(notification: StoredNotification, now: number): Promise<StoredNotification | null> {
    return orNull(
      this.deps.stores.notifications._patch(
        notification.id,
        { leaseUntil: now + this.settings.leaseMs, leaseHolder: this.id },
        {
          query: {
            status: 'queued',
            nextAttemptAt: { $lte: now },
            $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }]
          }
        }
      )
    )
  }

  private launch(notification: StoredNotification) {
    const run = this.run
    const attempt = this.attempt(notification, run)
      .catch((error) => this.deps.logger.error(`Notification ${notification.id} failed to record:`, error))
      .finally(() => {
        if (run !== this.run) return
        this.inflight.delete(notification.id)
        // The freed slot may serve another due notification.
        this.nudge()
      })
    this.inflight.set(notification.id, attempt)
  }

  /** Writes the outcome while this worker still holds the lease; announces it. False when the lease was lost. */
  private async record(notification: StoredNotification, update: Record<string, unknown>, run = this.run) {
    if (run !== this.run) return false
    const patched = await orNull(
      this.deps.stores.notifications._patch(
        notification.id,
        { ...update, leaseUntil: null, leaseHolder: null, updatedAt: this.now() },
        { query: { status: 'queued', leaseHolder: this.id, leaseUntil: notification.leaseUntil } }
      )
    )
    if (!patched) {
      this.deps.logger.warn(
        `Notification ${notification.id}: lease lost before the outcome was recorded (another worker sends it)`
      )
      return false
    }
    await this.deps.announce('notifications', 'patched', patched)
    return true
  }

  /** One delivery attempt of a claimed notification. */
  private async attempt(notification: StoredNotification, run: number) {
    const record = (update: Record<string, unknown>) => this.record(notification, update, run)
    // (the log's schema keeps the channel a string; the queue writes only these)
    const channel = notification.channel as NotificationChannel
    const account = await orNull(this.deps.stores.accounts._get(notification.recipient))
    const facility = await notificationSettingsOf(this.deps, notification.facility)
    const address = channel === 'email' ? account?.email : account?.mobileNo
    const skip = !facility.channels[channel]
      ? 'channel-off'
      : account?.notifications?.[channel] === false
        ? 'opted-out'
        : !address
          ? 'no-address'
          : null
    if (skip || !address) {
      await record({
        status: 'skipped',
        reason: skip ?? 'no-address',
        nextAttemptAt: null
      })
      return
    }
    const { messenger, rate } = this.options
    if (!messenger.configured(channel)) {
      // Not an attempt: nothing could carry it (a development server without SMTP_URL or SMS_WEBHOOK_URL).
      await record({
        status: 'failed',
        reason: `no ${channel === 'email' ? 'email (SMTP_URL)' : 'SMS (SMS_WEBHOOK_URL)'} transport is configured`,
        nextAttemptAt: null
      })
      return
    }
    const wait = await rate.take(notification.facility, this.settings.ratePerMinute, this.now())
    if (wait > 0) {
      const at = this.now() + wait
      if (await record({ nextAttemptAt: at })) this.wakeAt(at)
      return
    }
    // The address as it is now (the account may have changed it since the notification was queued).
    const to = channel === 'email' ? maskEmail(address) : maskPhone(address)
    let error: unknown
    try {
      if (channel === 'email') {
        const link = unsubscribeLink(this.deps, notification.recipient)
        const host = new URL(this.deps.providers.publicOrigin()).hostname
        await messenger.send({
          to: { email: address },
          subject: notification.subject ?? '',
          text: notification.body,
          fromName: facility.senderName,
          ...(facility.replyTo ? { replyTo: facility.replyTo } : {}),
          messageId: `<${notification.id}@${host}>`,
          headers: {
            'List-Unsubscribe': `<${link}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click'
          }
        })
      } else {
        await messenger.send({
          to: { mobileNo: address },
          subject: '',
          text: notification.body,
          idempotencyKey: notification.id
        })
      }
    } catch (caught) {
      error = caught
    }
    const now = this.now()
    const attempts = notification.attempts + 1
    if (error === undefined) {
      await record({
        status: 'sent',
        sentAt: now,
        to,
        nextAttemptAt: null,
        $inc: { attempts: 1 },
        $unset: { reason: '' }
      })
      return
    }
    const reason = reasonOf(error)
    const { maxAttempts, retryDelaysMs } = this.settings
    if (attempts >= maxAttempts) {
      await record({
        status: 'failed',
        reason,
        to,
        nextAttemptAt: null,
        $inc: { attempts: 1 }
      })
      return
    }
    const retryAt = now + retryDelaysMs[Math.min(attempts, retryDelaysMs.length) - 1]
    if (await record({ reason, to, nextAttemptAt: retryAt, $inc: { attempts: 1 } })) this.wakeAt(retryAt)
  }
}
