// Billing settings from config `billing` (config/default.json, BILLING_* env vars): currency and precision,
// the privilege that allows money operations, the accepted type/subjectType/paymentMethod lists, and the
// timings of crash recovery. Checked with the rest of the configuration at start-up (src/configuration.ts).
import type { Configuration } from '../declarations'

export type BillingSettings = Configuration['billing']

/** Names of the configurable value lists, by the body field they validate. */
export type BillingList =
  | 'encounterTypes'
  | 'invoiceTypes'
  | 'subjectTypes'
  | 'itemTypes'
  | 'serviceTypes'
  | 'paymentTypes'
  | 'paymentMethods'

/** The billing settings, as `deps.settings` (or the app) holds them now. */
export const billingSettings = (settings: { get(key: 'billing'): BillingSettings }): BillingSettings =>
  settings.get('billing')
