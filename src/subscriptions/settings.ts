// Subscription settings (config `subscriptions`) and the clock every subscription rule reads. The clock is the
// app's `clock` setting when one is given (an object with `now()`, milliseconds since the epoch; tests move it),
// otherwise the system clock.
import type { Application } from '../declarations'

export interface SubscriptionSettings {
  /** Key of the package whose base values a facility without a live subscription has. */
  defaultPackage: string
  /** Trial length when a sign-up asks for a trial of a package that names none. */
  defaultTrialDays: number
  /** How long a failed first payment stays `incomplete` before it becomes `incomplete_expired`. */
  incompleteWindowMs: number
  /** Days after a failed renewal at which the charge is tried again; after the last one: `unpaid`. */
  retryDays: number[]
  /** Lifetime of a checkout session (between 31 minutes and 24 hours less a minute). */
  checkoutExpiresAfterMs: number
  /** How often the time-driven pass runs (0: never). */
  jobIntervalMs: number
  /** Where the payer lands after checkout (empty: this server's own pages). */
  successURL: string
  cancelURL: string
  /** Packages created on first start when no package with their key exists. */
  packages: Record<string, unknown>[]
}

const DAY = 24 * 60 * 60 * 1000
export const dayMs = DAY

const number = (value: unknown, fallback: number) => {
  const n = Number(value)
  return Number.isFinite(n) && n >= 0 ? n : fallback
}

export const subscriptionSettings = (app: Application): SubscriptionSettings => {
  const raw = app.get('subscriptions') ?? {}
  const retry = Array.isArray(raw.retryDays) ? raw.retryDays.map(Number).filter((n: number) => Number.isFinite(n) && n > 0) : [1, 3, 5]
  return {
    defaultPackage: String(raw.defaultPackage ?? 'free'),
    defaultTrialDays: number(raw.defaultTrialDays, 14),
    incompleteWindowMs: number(raw.incompleteWindowMs, 23 * 60 * 60 * 1000),
    retryDays: retry,
    // Stripe accepts 30 minutes to 24 hours.
    checkoutExpiresAfterMs: Math.min(DAY - 60_000, Math.max(31 * 60 * 1000, number(raw.checkoutExpiresAfterMs, 23 * 60 * 60 * 1000))),
    jobIntervalMs: number(raw.jobIntervalMs, 60000),
    successURL: String(raw.successURL ?? ''),
    cancelURL: String(raw.cancelURL ?? ''),
    packages: Array.isArray(raw.packages) ? raw.packages : []
  }
}

/** Now, in milliseconds, by the app's clock. */
export const now = (app: Application): number => {
  const clock = app.get('clock')
  return clock && typeof clock.now === 'function' ? Number(clock.now()) : Date.now()
}
