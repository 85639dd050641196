// Billing settings from config `billing` (config/default.json, BILLING_* env vars): currency and precision,
// the privilege that allows money operations, the accepted type/subjectType/paymentMethod lists, and the
// timings of crash recovery. Checked once at startup so a bad deployment value fails loudly.
import type { Application } from '../declarations'

export interface BillingSettings {
  currency: string
  moneyDecimals: number
  privilege: string
  encounterTypes: string[]
  invoiceTypes: string[]
  subjectTypes: string[]
  itemTypes: string[]
  serviceTypes: string[]
  paymentTypes: string[]
  paymentMethods: string[]
  encounterInvoiceType: string
  staleAfterMs: number
  recoveryIntervalMs: number
  totalsSweepWindowMs: number
}

/** Names of the configurable value lists, by the body field they validate. */
export type BillingList = 'encounterTypes' | 'invoiceTypes' | 'subjectTypes' | 'itemTypes' | 'serviceTypes' | 'paymentTypes' | 'paymentMethods'

const lists: BillingList[] = ['encounterTypes', 'invoiceTypes', 'subjectTypes', 'itemTypes', 'serviceTypes', 'paymentTypes', 'paymentMethods']

/** The billing settings; throws at startup when a value is unusable. */
export const billingSettings = (app: Application): BillingSettings => {
  const cached = app.get('billingSettings')
  if (cached) return cached
  const raw = app.get('billing') ?? {}
  const problems: string[] = []
  for (const list of lists) {
    const value = raw[list]
    if (!Array.isArray(value) || value.length === 0 || value.some((v: unknown) => typeof v !== 'string' || v.length === 0 || v.length > 100)) {
      problems.push(`billing.${list} must be a non-empty array of strings`)
    }
  }
  if (!Number.isInteger(raw.moneyDecimals) || raw.moneyDecimals < 0 || raw.moneyDecimals > 4) problems.push('billing.moneyDecimals must be an integer from 0 to 4')
  if (typeof raw.currency !== 'string' || !/^[A-Z]{3}$/.test(raw.currency)) problems.push('billing.currency must be a 3-letter currency code')
  if (typeof raw.privilege !== 'string' || !raw.privilege) problems.push('billing.privilege must be a privilege name')
  for (const key of ['staleAfterMs', 'recoveryIntervalMs', 'totalsSweepWindowMs']) {
    if (typeof raw[key] !== 'number' || raw[key] < 0) problems.push(`billing.${key} must be a number of milliseconds`)
  }
  if (problems.length) throw new Error(`Invalid billing configuration: ${problems.join('; ')}`)
  const settings: BillingSettings = { encounterInvoiceType: 'encounter', ...raw }
  app.set('billingSettings', settings)
  return settings
}
