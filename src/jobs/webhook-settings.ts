// Webhook delivery settings: config `webhooks` (config/default.json, WEBHOOK_* variables; the ones given in
// seconds are converted in src/configuration.ts) with the values the worker derives from them.
import type { Configuration } from '../declarations'
import type { Settings } from '../deps'

export interface WebhookSettings {
  /** Deliver to private, loopback and link-local addresses (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean
  /** Milliseconds to wait before each retry; N delays allow 1 + N attempts (WEBHOOK_RETRY_DELAYS). */
  retryDelaysMs: number[]
  /** Deadline of one attempt (WEBHOOK_TIMEOUT). */
  timeoutMs: number
  /** A webhook whose attempts keep failing for this long is deactivated (WEBHOOK_DEACTIVATE_AFTER). */
  deactivateAfterMs: number
  /** How often the worker looks for due deliveries written by other instances (WEBHOOK_POLL_INTERVAL). */
  pollMs: number
  /** Attempts in flight at once in this process (WEBHOOK_CONCURRENCY). */
  concurrency: number
  /** Attempts in flight at once per webhook, across all instances (WEBHOOK_CONCURRENCY_PER_WEBHOOK). */
  perWebhook: number
  /** A claimed delivery is leased for timeout + margin (WEBHOOK_LEASE_MARGIN); an expired lease is reclaimed. */
  leaseMs: number
  /** Delivered and failed deliveries older than this are removed; 0 keeps them (WEBHOOK_RETENTION). */
  retentionMs: number
  /** A webhook with nothing queued is still looked at this often (repairs a wake-up lost in a crash). */
  idleMs: number
}

/** The worker's settings from the checked configuration. */
export const deriveWebhookSettings = (config: Configuration['webhooks']): WebhookSettings => ({
  allowPrivate: config.allowPrivate,
  retryDelaysMs: config.retryDelaysMs,
  timeoutMs: config.timeoutMs,
  deactivateAfterMs: config.deactivateAfterMs,
  pollMs: config.pollIntervalMs,
  concurrency: config.concurrency,
  perWebhook: config.concurrencyPerWebhook,
  leaseMs: config.timeoutMs + config.leaseMarginMs,
  retentionMs: config.retentionMs,
  idleMs: Math.max(60000, config.pollIntervalMs)
})

/** The app's webhook settings (as they are now). */
export const webhookSettings = (settings: Settings): WebhookSettings =>
  deriveWebhookSettings(settings.get('webhooks'))
