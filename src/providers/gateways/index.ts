// Payment gateways: where a payer approves and a payment intent is captured. `gatewayType` is
// `<gateway>-<method>` (split at the first `-`). Every gateway maps its own order states onto one internal
// state machine (src/billing/intents.ts): created → approved → captured, or cancelled / failed. Built-in:
// `sandbox` (methods `card`, `wallet`; its approval page is served by this app). Which gateways a server
// offers is config `gateways.enabled` (GATEWAYS).
import type { Application } from '../../declarations'
import { appSlot } from '../../runtime'
import { createSandboxGateway } from './sandbox'
import { createPayPalGateway, type PayPalSettings } from './paypal'

export type IntentStatus = 'created' | 'approved' | 'capturing' | 'captured' | 'cancelled' | 'failed'

export interface GatewayOrderInput {
  intent: string
  currency: string
  /** The amount in major units, as a decimal string with the configured decimals. */
  amount: string
  returnURL: string
  cancelURL: string
  /** This server's public origin (for pages it serves itself). */
  origin: string
  /** A random secret of the intent for its approval page. */
  checkoutSecret: string
}

export interface PaymentGateway {
  name: string
  methods: readonly string[]
  /** Creates the gateway's order; resolves to its id and the page where the payer approves it. */
  createOrder(input: GatewayOrderInput): Promise<{ orderId: string; approvalURL: string }>
  /** The gateway's own view of an order mapped to ours; `null` when this server keeps the state (sandbox). */
  orderStatus(orderId: string): Promise<IntentStatus | null>
  /** Captures an approved order. */
  capture(
    orderId: string,
    amount: { currency: string; amount: string }
  ): Promise<{ status: 'captured' } | { status: 'failed'; reason: string }>
}

/** The gateway failed or did not answer: a 502 (nothing was captured). */
export class GatewayUnavailable extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'GatewayUnavailable'
  }
}

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
  /** Origins allowed for return/cancel URLs; empty: this server's origin and http://localhost / http://127.0.0.1 on any port. */
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
export const gatewaySettings = (app: Application): GatewaySettings => {
  const config = app.get('gateways')
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

const gatewaysSlot = appSlot<Map<string, PaymentGateway>>('payment gateways')

/** The configured gateway named `name` (built once per app). */
export const gatewayOf = (app: Application, name: string): PaymentGateway => {
  const cache = gatewaysSlot.ensure(app, () => new Map())
  let gateway = cache.get(name)
  if (!gateway) {
    if (name === 'sandbox') gateway = createSandboxGateway()
    else if (name === 'paypal') gateway = createPayPalGateway(gatewaySettings(app).paypal)
    else throw new Error(`gateway '${name}' has no adapter`)
    cache.set(name, gateway)
  }
  return gateway
}
