// Payment gateways: where a payer approves and a payment intent is captured. `gatewayType` is
// `<gateway>-<method>` (split at the first `-`). Every gateway maps its own order states onto one internal
// state machine (src/billing/intents.ts): created → approved → captured, or cancelled / failed. Built-in:
// `sandbox` (methods `card`, `wallet`; its approval page is served by this app). Which gateways a server
// offers is config `gateways.enabled` (GATEWAYS).
import type { Configuration } from '../../configuration'
import { createSandboxGateway } from './sandbox'
import { createPayPalGateway, type PayPalSettings } from './paypal'
import type { PaymentGateway } from './types'

export * from './types'

/** Every gateway this code base knows and its methods (whether configured or not). */
export const knownGateways: Record<string, readonly string[]> = {
  sandbox: ['card', 'wallet'],
  paypal: ['paypal', 'card']
}

export interface Fee {
  percent: number
  fixed: number
}

export interface GatewaySettings {
  enabled: string[]
  /** Origins allowed for return/cancel URLs; empty: this server's origin and http://localhost / http://127.0.0.1 on every port. */
  returnOrigins: string[]
  publicURL: string
  defaultReturnURL: string
  defaultCancelURL: string
  expireAfterMs: number
  fees: Record<string, Fee>
  paypal: PayPalSettings
}

/**
 * The gateway settings (config `gateways`): GATEWAYS may only name gateways this code base knows, and PayPal needs
 * its credentials; anything else was checked with the configuration (src/configuration.ts).
 */
export const gatewaySettings = (config: Configuration['gateways']): GatewaySettings => {
  for (const name of config.enabled)
    if (!knownGateways[name])
      throw new Error(`Invalid gateways configuration: unknown gateway '${name}' in GATEWAYS`)
  const settings: GatewaySettings = {
    ...config,
    returnOrigins: config.returnOrigins
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((origin) => new URL(origin).origin),
    publicURL: config.publicURL.replace(/\/+$/, '')
  }
  if (config.enabled.includes('paypal') && (!settings.paypal.clientId || !settings.paypal.clientSecret)) {
    throw new Error(
      'Invalid gateways configuration: GATEWAYS includes paypal, which needs PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET'
    )
  }
  return settings
}

/** The adapter of gateway `name` (sandbox, or PayPal with `settings`). */
export const createGateway = (name: string, settings: GatewaySettings): PaymentGateway => {
  if (name === 'sandbox') return createSandboxGateway()
  if (name === 'paypal') return createPayPalGateway(settings.paypal)
  throw new Error(`gateway '${name}' has no adapter`)
}
