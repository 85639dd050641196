// Billing settings from config `billing` (config/default.json, BILLING_* env vars): currency and precision,
// the privilege that allows money operations, the accepted type/subjectType/paymentMethod lists, and the
// timings of crash recovery. Checked with the rest of the configuration at start-up (src/configuration.ts).
import type { Application, Configuration } from '../declarations'

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

/** The billing settings. */
export const billingSettings = (app: Application): BillingSettings => app.get('billing')
