// The webhook delivery worker. Deliveries are documents (src/jobs/webhook-queue.ts); every instance runs a
// worker, and they share the work through the datastore only:
// - Each webhook has a schedule (`dueAt`): the worker looks at the queues of due, active webhooks (a poll
//   every WEBHOOK_POLL_INTERVAL, and at once when this process enqueued something or an attempt ended).
// - A webhook's deliveries go out in creation order: only the first `perWebhook` pending ones (its window)
//   may be in flight, so a delivery waiting for its retry holds the ones behind it.
// - An attempt is claimed with a lease — an atomic conditional patch that succeeds only while the delivery
//   is pending and its lease expired — so no two workers send one delivery at once; a lease left behind by
//   a crash expires (timeout + margin) and the delivery is claimed again: at least once, never lost.
// - 2xx = delivered; anything else is retried after WEBHOOK_RETRY_DELAYS, then failed. Failures spanning
//   WEBHOOK_DEACTIVATE_AFTER deactivate the webhook (its queue pauses until the owner reactivates it).
// - In-flight attempts are bounded per process and per webhook, so a dead receiver holds at most its own
//   window's slots and never delays other webhooks.
// - A delivery of patient data is recorded in the audit trail once (src/audit/webhooks.ts), before its first
//   attempt is sent: the attempt's holder records it and marks the delivery (`auditedAt`), so retries — here or on
//   another instance — do not record it again. An attempt that cannot be recorded is not sent (its lease expires
//   and it is claimed again).
import os from 'node:os'
import { randomBytes } from 'node:crypto'
import { NotFound } from '@feathersjs/errors'
import type { Deps } from '../deps'
import { deliverWebhook, type WebhookDeliveryResult } from '../providers/webhook-http'
import { deliveryBody, type StoredDelivery, type StoredWebhook } from './webhook-queue'
import type { WebhookSettings } from './webhook-settings'
import { PollLoop } from './poll-loop'

/** What the worker uses: the webhooks and deliveries stores, the clock, the bus (wake-ups), the this.deps.logger. */
export type WorkerDeps = Pick<Deps, 'stores' | 'clock' | 'events' | 'logger'>

/** How an attempt ended, as the metrics count it. */
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'lease-lost'

export interface WebhookWorkerOptions {
  settings: WebhookSettings
  /**
   * Records the delivery of patient data to the receiver in the audit trail (src/audit/webhooks.ts); resolves with
   * false when there is nothing to record, rejects when it cannot be recorded (the attempt is then not sent).
   */
  auditDelivery?: (delivery: StoredDelivery, webhook: StoredWebhook) => Promise<boolean>
  /** Counts each attempt's outcome (the app's metrics). */
  countOutcome?: (outcome: DeliveryOutcome) => void
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.())

const ignoreNotFound = (error: unknown) => {
  if (!(error instanceof NotFound)) throw error
  return null
}

// How long stop() lets attempts in flight finish before leaving them to their leases.
const STOP_GRACE_MS = 5000
// How often old delivered/failed deliveries are removed (when a retention is set).
const CLEANUP_EVERY_MS = 3600000

export class WebhookWorker {
  readonly id = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  readonly settings: WebhookSettings
  private readonly inflight = new Map<string, Promise<void>>()
  private readonly inflightByWebhook = new Map<string, number>()
  /** Slots taken by claims still being written (so concurrent checks never exceed the limit). */
  private reserved = 0
  private readonly checking = new Set<string>()
  private readonly checkAgain = new Set<string>()
  /** Re-checks started when an attempt ended (awaited by stop()). */
  private readonly background = new Set<Promise<void>>()
  private readonly loop: PollLoop
  private running = false
  /** Set when stop() gave up waiting: late results are then left to the leases. */
  private abandoned = false
  private lastCleanup = 0

  private unsubscribe?: () => void

  constructor(
    private readonly deps: WorkerDeps,
    private readonly options: WebhookWorkerOptions
  ) {
    this.settings = options.settings
    this.loop = new PollLoop({
      tick: () => this.tick(),
      intervalMs: () => this.settings.pollMs,
      now: () => this.now(),
      onError: (error) => this.deps.logger.error('Webhook worker poll failed:', error)
    })
  }

  private now() {
    return this.deps.clock.now()
  }

  /** Starts polling; every active webhook is looked at once at start (resumes whatever a crash left). */
  async start() {
    if (this.running) return
    this.running = true
    this.abandoned = false
    // Deliveries queued in this process are looked at at once.
    this.unsubscribe = this.deps.events.on('webhook.queued', ({ webhook }) => this.nudge(webhook))
    await this.deps.stores.webhooks._patch(
      null,
      { $min: { dueAt: this.now() } },
      { query: { active: true }, adapter: { multi: true } }
    )
    if (this.running) this.loop.start()
  }

  /** Stops polling and waits (a few seconds at most, never past `maxWaitMs`) for attempts in flight. */
  async stop(maxWaitMs = STOP_GRACE_MS) {
    this.running = false
    this.unsubscribe?.()
    this.unsubscribe = undefined
    await this.loop.stop()
    await Promise.allSettled([...this.background])
    const all = Promise.allSettled([...this.inflight.values()])
    await Promise.race([all, sleep(Math.min(maxWaitMs, this.settings.timeoutMs + 1000))])
    this.abandoned = true
  }

  /**
   * Something was queued (for `webhookId`, when given) or a slot freed here: look for due work now rather than
   * at the next poll. A webhook with attempts in flight here is left out of the polls (its attempts' ends look
   * at it again), so a new delivery for it is looked at directly.
   */
  nudge(webhookId?: string) {
    if (!this.running) return
    if (webhookId && this.inflightByWebhook.has(webhookId)) {
      this.follow(this.recheck(webhookId))
      return
    }
    this.loop.nudge()
  }

  /** Attempts in flight in this process. */
  get active() {
    return this.inflight.size
  }

  /** Looks at `webhookId` again at `at` (a retry due before the next poll). */
  private wakeAt(at: number, webhookId: string) {
    this.loop.wakeAt(at, () => this.nudge(webhookId))
  }

  private freeSlots() {
    return this.settings.concurrency - this.inflight.size - this.reserved
  }

  private async tick() {
    await this.cleanup()
    for (let round = 0; round < 50 && this.running; round++) {
      const free = this.freeSlots()
      if (free <= 0) return
      const busy = [...this.inflightByWebhook.keys()]
      const limit = Math.max(10, free * 2)
      const due: StoredWebhook[] = await this.deps.stores.webhooks._find({
        query: {
          active: true,
          dueAt: { $lte: this.now() },
          ...(busy.length ? { id: { $nin: busy } } : {}),
          $sort: { dueAt: 1 },
          $limit: limit
        },
        paginate: false
      })
      for (const webhook of due) {
        if (!this.running || this.freeSlots() <= 0) return
        await this.check(webhook)
      }
      if (due.length < limit) return
    }
  }

  /** Looks at one webhook's window: claims what is due, and sets the schedule to the next moment something will be. */
  private async check(webhook: StoredWebhook) {
    if (this.checking.has(webhook.id)) {
      this.checkAgain.add(webhook.id)
      return
    }
    this.checking.add(webhook.id)
    try {
      await this.checkOnce(webhook)
    } finally {
      this.checking.delete(webhook.id)
    }
    if (this.checkAgain.delete(webhook.id) && this.running) await this.recheck(webhook.id)
  }

  private async checkOnce(webhook: StoredWebhook) {
    const deliveries = this.deps.stores.deliveries
    const now = this.now()
    const window: StoredDelivery[] = await deliveries._find({
      query: { queue: webhook.id, $sort: { createdAt: 1, id: 1 }, $limit: this.settings.perWebhook },
      paginate: false
    })
    // When the worker should look again, for the entries this check did not claim (claims in flight here are
    // followed up when they end, so they need no wake-up in the store).
    let wake = Infinity
    let followedHere = false
    for (const delivery of window) {
      if (this.inflight.has(delivery.id)) {
        followedHere = true
        continue
      }
      if (delivery.leaseUntil > now) {
        wake = Math.min(wake, delivery.leaseUntil)
        continue
      }
      if (delivery.nextAttemptAt > now) {
        wake = Math.min(wake, delivery.nextAttemptAt)
        continue
      }
      if (!this.running || !webhook.active || this.freeSlots() <= 0) {
        wake = Math.min(wake, now)
        continue
      }
      this.reserved++
      let claimed: StoredDelivery | null
      try {
        claimed = await deliveries
          ._patch(
            delivery.id,
            {
              leaseUntil: now + this.settings.leaseMs,
              leaseOwner: this.id,
              lastAttemptAt: now,
              $inc: { attempts: 1 }
            },
            { query: { status: 'pending', leaseUntil: { $lte: now } } }
          )
          .catch(ignoreNotFound)
      } finally {
        this.reserved--
      }
      if (!claimed) {
        // Another worker claimed it first; look again once its lease is written.
        wake = Math.min(wake, now + this.settings.pollMs)
        continue
      }
      followedHere = true
      this.launch(claimed, webhook)
    }
    if (followedHere && wake === Infinity) return
    if (wake === Infinity) wake = now + this.settings.idleMs
    // Conditional on the queue version read with the webhook: an enqueue in between keeps its wake-up.
    await this.deps.stores.webhooks
      ._patch(webhook.id, { dueAt: wake }, { query: { queueVersion: webhook.queueVersion } })
      .catch(ignoreNotFound)
  }

  private launch(delivery: StoredDelivery, webhook: StoredWebhook) {
    this.inflightByWebhook.set(webhook.id, (this.inflightByWebhook.get(webhook.id) ?? 0) + 1)
    const attempt = this.attempt(delivery, webhook)
      .catch((error) => this.deps.logger.error(`Webhook delivery ${delivery.id} failed to record:`, error))
      .finally(() => {
        this.inflight.delete(delivery.id)
        const left = (this.inflightByWebhook.get(webhook.id) ?? 1) - 1
        if (left > 0) this.inflightByWebhook.set(webhook.id, left)
        else this.inflightByWebhook.delete(webhook.id)
        if (!this.running) return
        // The next delivery of this webhook goes out now; the freed slot may serve another webhook.
        this.follow(this.recheck(webhook.id).finally(() => this.nudge()))
      })
    this.inflight.set(delivery.id, attempt)
  }

  /** Keeps track of a background check (stop() waits for them). */
  private follow(work: Promise<void>) {
    const tracked: Promise<void> = work
      .catch((error) => this.deps.logger.error('Webhook worker check failed:', error))
      .finally(() => this.background.delete(tracked))
    this.background.add(tracked)
  }

  private async recheck(webhookId: string) {
    const webhook = await this.deps.stores.webhooks._get(webhookId).catch(ignoreNotFound)
    if (webhook && webhook.active) await this.check(webhook)
  }

  /** One attempt: POST, then record the outcome on the delivery (only while this worker still holds its lease) and on the webhook. */
  private async attempt(delivery: StoredDelivery, webhook: StoredWebhook) {
    const { auditDelivery } = this.options
    if (delivery.auditedAt === undefined && auditDelivery && (await auditDelivery(delivery, webhook))) {
      await this.deps.stores.deliveries
        ._patch(
          delivery.id,
          { auditedAt: this.now() },
          { query: { status: 'pending', leaseOwner: this.id, leaseUntil: delivery.leaseUntil } }
        )
        .catch(ignoreNotFound)
    }
    const started = this.now()
    const result = await deliverWebhook({
      url: webhook.url,
      // (every stored webhook has one: set at its creation)
      secret: webhook.secret ?? '',
      id: delivery.id,
      body: deliveryBody(delivery),
      timeoutMs: this.settings.timeoutMs,
      allowPrivate: this.settings.allowPrivate
    })
    if (this.abandoned) return
    const now = this.now()
    const lastResponse: NonNullable<StoredDelivery['lastResponse']> = {
      ...(result.status !== undefined ? { status: result.status } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
      durationMs: result.durationMs,
      at: now
    }
    let update: Record<string, unknown>
    let retryAt: number | undefined
    let outcome: 'delivered' | 'retry' | 'failed'
    if (result.ok) {
      outcome = 'delivered'
      update = { status: 'delivered', deliveredAt: now, leaseUntil: 0, lastResponse, $unset: { queue: '' } }
    } else {
      const delays = this.settings.retryDelaysMs
      if (delivery.attempts <= delays.length) {
        retryAt = now + delays[delivery.attempts - 1]
        outcome = 'retry'
        update = { nextAttemptAt: retryAt, leaseUntil: 0, lastResponse }
      } else {
        outcome = 'failed'
        update = { status: 'failed', failedAt: now, leaseUntil: 0, lastResponse, $unset: { queue: '' } }
      }
    }
    // A success ends the webhook's failure streak before the delivery shows `delivered`, so whoever reads the
    // delivered delivery also reads the webhook without the streak (the endpoint answered, whoever records it).
    if (result.ok) await this.recordOnWebhook(webhook, result, started, now)
    const recorded = await this.deps.stores.deliveries
      ._patch(delivery.id, update, {
        query: { status: 'pending', leaseOwner: this.id, leaseUntil: delivery.leaseUntil }
      })
      .catch(ignoreNotFound)
    this.options.countOutcome?.(recorded ? outcome : 'lease-lost')
    if (!recorded) {
      this.deps.logger.warn(
        `Webhook delivery ${delivery.id}: lease lost before the outcome was recorded (another worker retries it)`
      )
      return
    }
    if (retryAt !== undefined) this.wakeAt(retryAt, webhook.id)
    if (!result.ok) await this.recordOnWebhook(webhook, result, started, now)
  }

  /** A success ends the webhook's failure streak; a failure extends it and, once it spans the window, deactivates the webhook. */
  private async recordOnWebhook(
    webhook: StoredWebhook,
    result: WebhookDeliveryResult,
    started: number,
    now: number
  ) {
    const webhooks = this.deps.stores.webhooks
    if (result.ok) {
      if (webhook.failingSince !== undefined || (webhook.consecutiveFailures ?? 0) > 0) {
        await webhooks
          ._patch(webhook.id, { consecutiveFailures: 0, $unset: { failingSince: '', lastFailureAt: '' } })
          .catch(ignoreNotFound)
      }
      return
    }
    const updated = await webhooks
      ._patch(webhook.id, {
        lastFailureAt: now,
        $inc: { consecutiveFailures: 1 },
        $min: { failingSince: started }
      })
      .catch(ignoreNotFound)
    if (!updated || !updated.active) return
    // Set by the `$min` above.
    const failingSince = updated.failingSince ?? started
    if (now - failingSince < this.settings.deactivateAfterMs) return
    const since = new Date(failingSince).toISOString()
    const reason = `deactivated after ${updated.consecutiveFailures} consecutive failed attempts since ${since} (last: ${result.error ?? `HTTP ${result.status}`})`
    const deactivated = await webhooks
      ._patch(
        webhook.id,
        { active: false, deactivatedAt: now, deactivatedReason: reason },
        { query: { active: true } }
      )
      .catch(ignoreNotFound)
    if (deactivated) this.deps.logger.warn(`Webhook ${webhook.id} ${reason}`)
  }

  /** Removes delivered and failed deliveries older than the retention (at most once an hour). */
  private async cleanup() {
    const { retentionMs } = this.settings
    const now = this.now()
    if (retentionMs <= 0 || now - this.lastCleanup < CLEANUP_EVERY_MS) return
    this.lastCleanup = now
    await this.deps.stores.deliveries._remove(null, {
      query: { status: { $in: ['delivered', 'failed'] }, createdAt: { $lt: now - retentionMs } },
      adapter: { multi: true }
    })
  }
}
