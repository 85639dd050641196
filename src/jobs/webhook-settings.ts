// Webhook delivery settings from config (`webhooks` in config/*.json, WEBHOOK_* environment variables),
// parsed and checked once per app so a bad value stops the server at startup instead of at the first event.
import type { Application } from '../declarations'

export interface WebhookSettings {
  /** Deliver to private, loopback and link-local addresses (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean
  /** Seconds to wait before each retry; N delays allow 1 + N attempts (WEBHOOK_RETRY_DELAYS). */
  retryDelays: number[]
  /** Deadline of one attempt (WEBHOOK_TIMEOUT, seconds). */
  timeoutMs: number
  /** A webhook whose attempts keep failing for this long is deactivated (WEBHOOK_DEACTIVATE_AFTER, seconds). */
  deactivateAfterMs: number
  /** How often the worker looks for due deliveries written by other instances (WEBHOOK_POLL_INTERVAL, seconds). */
  pollMs: number
  /** Attempts in flight at once in this process (WEBHOOK_CONCURRENCY). */
  concurrency: number
  /** Attempts in flight at once per webhook, across all instances (WEBHOOK_CONCURRENCY_PER_WEBHOOK). */
  perWebhook: number
  /** A claimed delivery is leased for timeout + this margin; an expired lease is reclaimed (WEBHOOK_LEASE_MARGIN, seconds). */
  leaseMs: number
  /** Delivered and failed deliveries older than this are removed; 0 keeps them (WEBHOOK_RETENTION, seconds). */
  retentionMs: number
  /** A webhook with nothing queued is still looked at this often (repairs a wake-up lost in a crash). */
  idleMs: number
}

export const DEFAULT_RETRY_DELAYS = '5,300,1800,7200,18000,36000,36000'

const defaults = {
  allowPrivate: false,
  retryDelays: DEFAULT_RETRY_DELAYS,
  timeout: 15,
  deactivateAfter: 432000,
  pollInterval: 1,
  concurrency: 20,
  concurrencyPerWebhook: 1,
  leaseMargin: 30,
  retention: 2592000
}

const seconds = (name: string, value: unknown, { min = 0, integer = false } = {}): number => {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  if (typeof number !== 'number' || !Number.isFinite(number) || number < min || (integer && !Number.isInteger(number))) {
    throw new Error(`Invalid webhook setting ${name}: ${JSON.stringify(value)} (expected a ${integer ? 'whole ' : ''}number >= ${min})`)
  }
  return number
}

/** Parses "5,300,1800" (or an array of numbers) into seconds; fractional seconds are accepted; "none" or "" is no retry. */
export const parseRetryDelays = (value: unknown): number[] => {
  if (typeof value === 'string' && value.trim().toLowerCase() === 'none') return []
  const parts = Array.isArray(value) ? value : String(value ?? '').split(',').map((part) => part.trim()).filter((part) => part !== '')
  return parts.map((part, index) => seconds(`retryDelays[${index}]`, part))
}

const bool = (value: unknown) => value === true || value === 'true' || value === '1'

export const parseWebhookSettings = (raw: Record<string, unknown> = {}): WebhookSettings => {
  const c = { ...defaults, ...raw }
  const timeoutMs = seconds('timeout', c.timeout, { min: 0.001 }) * 1000
  const pollMs = seconds('pollInterval', c.pollInterval, { min: 0.001 }) * 1000
  return {
    allowPrivate: bool(c.allowPrivate),
    retryDelays: parseRetryDelays(c.retryDelays),
    timeoutMs,
    deactivateAfterMs: seconds('deactivateAfter', c.deactivateAfter) * 1000,
    pollMs,
    concurrency: seconds('concurrency', c.concurrency, { min: 1, integer: true }),
    perWebhook: seconds('concurrencyPerWebhook', c.concurrencyPerWebhook, { min: 1, integer: true }),
    leaseMs: timeoutMs + seconds('leaseMargin', c.leaseMargin) * 1000,
    retentionMs: seconds('retention', c.retention) * 1000,
    idleMs: Math.max(60000, pollMs)
  }
}

const cache = new WeakMap<object, { raw: unknown; settings: WebhookSettings }>()

/** The app's webhook settings (re-parsed only when `app.set('webhooks', …)` replaced them). */
export const webhookSettings = (app: Application): WebhookSettings => {
  const raw = app.get('webhooks')
  const cached = cache.get(app)
  if (cached && cached.raw === raw) return cached.settings
  const settings = parseWebhookSettings(raw ?? {})
  cache.set(app, { raw, settings })
  return settings
}
