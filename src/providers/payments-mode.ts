// Whether payments take real money. The sandbox card processor (PROCESSOR=sandbox), the sandbox gateway
// (GATEWAYS including `sandbox`), a Stripe test-mode key and PayPal's sandbox API all let anyone "pay" without
// money: the sandbox's own checkout and approval pages have Pay/Approve buttons, and test-mode Stripe and PayPal
// accept test cards and test accounts. In production the server refuses to start on one of them unless
// ALLOW_SANDBOX_PAYMENTS=true says it is meant (a demo), and then warns at every start; /health/ready reports the
// mode (`payments`: `sandbox` or `live`) in every environment.
import type { Configuration } from '../declarations'
import { StartupError } from '../startup-error'

export type PaymentsMode = 'sandbox' | 'live'

type PaymentSettings = Pick<Configuration, 'processor' | 'gateways' | 'allowSandboxPayments'>

const paypalSandboxHosts = /(^|\.)sandbox\.paypal\.com$/i

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname
  } catch {
    return ''
  }
}

/** The settings that make payments take no real money, each named as its variable and value. */
export const sandboxPaymentSettings = (settings: Pick<Configuration, 'processor' | 'gateways'>): string[] => {
  const found: string[] = []
  if (settings.processor.kind === 'sandbox') found.push('PROCESSOR=sandbox')
  else if (/^(sk|rk)_test_/.test(settings.processor.stripe.secretKey))
    found.push('STRIPE_SECRET_KEY is a Stripe test-mode key')
  if (settings.gateways.enabled.includes('sandbox')) found.push('GATEWAYS includes sandbox')
  if (
    settings.gateways.enabled.includes('paypal') &&
    paypalSandboxHosts.test(hostOf(settings.gateways.paypal.baseURL))
  ) {
    found.push(`PAYPAL_BASE_URL is PayPal's sandbox (${settings.gateways.paypal.baseURL})`)
  }
  return found
}

/** `sandbox` when a payment setting takes no real money, else `live`. */
export const paymentsMode = (settings: Pick<Configuration, 'processor' | 'gateways'>): PaymentsMode =>
  sandboxPaymentSettings(settings).length ? 'sandbox' : 'live'

/**
 * Production with sandbox payments: throws (a one-line message naming the settings and what to do) unless
 * ALLOW_SANDBOX_PAYMENTS=true; then resolves to the warning to log at start-up. Other environments: null.
 */
export const checkPaymentsForProduction = (
  settings: PaymentSettings,
  env = process.env.NODE_ENV
): string | null => {
  if (env !== 'production') return null
  const found = sandboxPaymentSettings(settings)
  if (!found.length) return null
  if (!settings.allowSandboxPayments) {
    throw new StartupError(
      `Refusing to start in production with payments that take no real money: ${found.join('; ')}. ` +
        'Configure real payments (PROCESSOR=stripe with a live STRIPE_SECRET_KEY; GATEWAYS without sandbox, e.g. ["paypal"] with PAYPAL_BASE_URL=https://api-m.paypal.com, or []), ' +
        'or set ALLOW_SANDBOX_PAYMENTS=true to run a demonstration on sandbox payments on purpose.'
    )
  }
  return `Sandbox payments in production (ALLOW_SANDBOX_PAYMENTS=true): ${found.join('; ')}. Anyone can complete a checkout without paying; /health/ready reports "payments":"sandbox".`
}
