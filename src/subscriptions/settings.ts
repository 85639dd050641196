// Subscription settings (config `subscriptions`) and the clock every subscription rule reads. The clock is the
// app's `clock` setting when one is given (an object with `now()`, milliseconds since the epoch; tests move it),
// otherwise the system clock.
import type { Application, Configuration } from '../declarations'

export type SubscriptionSettings = Configuration['subscriptions']

const DAY = 24 * 60 * 60 * 1000
export const dayMs = DAY

/** The subscription settings; a checkout session lives between 31 minutes and 24 hours less a minute (Stripe's bounds). */
export const subscriptionSettings = (app: Application): SubscriptionSettings => {
  const settings = app.get('subscriptions')
  return {
    ...settings,
    checkoutExpiresAfterMs: Math.min(DAY - 60_000, Math.max(31 * 60 * 1000, settings.checkoutExpiresAfterMs))
  }
}

/** Now, in milliseconds, by the app's clock. */
export const now = (app: Application): number => {
  const clock = app.get('clock')
  return clock ? Number(clock.now()) : Date.now()
}
