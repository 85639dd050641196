// Subscription settings (config `subscriptions`). Every subscription rule reads the time from `deps.clock` (the
// app's `clock` setting when one is given — tests move it — otherwise the system clock).
import type { Configuration } from '../configuration'
import type { Deps } from '../deps'

export type SubscriptionSettings = Configuration['subscriptions']

const DAY = 24 * 60 * 60 * 1000
export const dayMs = DAY

/** The subscription settings; a checkout session lives between 31 minutes and 24 hours less a minute (Stripe's bounds). */
export const subscriptionSettings = (deps: Pick<Deps, 'settings'>): SubscriptionSettings => {
  const settings = deps.settings.get('subscriptions')
  return {
    ...settings,
    checkoutExpiresAfterMs: Math.min(DAY - 60_000, Math.max(31 * 60 * 1000, settings.checkoutExpiresAfterMs))
  }
}
