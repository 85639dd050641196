// Payment gateways: where a payer approves and a payment intent is captured. `gatewayType` is
// `<gateway>-<method>` (split at the first `-`). Every gateway maps its own order states onto one internal
// state machine (src/billing/intents.ts): created → approved → captured, or cancelled / failed. Built-in:
// `sandbox` (methods `card`, `wallet`; its approval page is served by this app). Which gateways a server
// offers is config `gateways.enabled` (GATEWAYS).
import type { Application } from '../../declarations'
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
  capture(orderId: string, amount: { currency: string; amount: string }): Promise<{ status: 'captured' } | { status: 'failed'; reason: string }>
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

const list = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.map(String)
  if (typeof value === 'string' && value.trim().startsWith('[')) return JSON.parse(value)
  return typeof value === 'string' ? value.split(',').map((part) => part.trim()).filter(Boolean) : []
}

// The parsed settings are cached on the app under a key that is no configuration field (typed loosely by the settings bag).
export const gatewaySettings = (app: Application): GatewaySettings => {
  const cached = app.get('gatewaySettings')
  if (cached) return cached
  const raw = app.get('gateways') ?? {}
  const enabled = list(raw.enabled ?? ['sandbox'])
  for (const name of enabled) if (!knownGateways[name]) throw new Error(`Invalid gateways configuration: unknown gateway '${name}' in GATEWAYS`)
  const fees = typeof raw.fees === 'string' ? JSON.parse(raw.fees) : (raw.fees ?? {})
  for (const [key, fee] of Object.entries<any>(fees)) {
    if (!fee || typeof fee.percent !== 'number' || typeof fee.fixed !== 'number' || fee.percent < 0 || fee.percent > 100 || fee.fixed < 0) {
      throw new Error(`Invalid gateways configuration: GATEWAY_FEES entry '${key}' needs { percent: 0–100, fixed: ≥ 0 }`)
    }
  }
  const expireAfterMs = Number(raw.expireAfterMs ?? 10_800_000)
  const settings: GatewaySettings = {
    enabled,
    returnOrigins: list(raw.returnOrigins ?? '').map((origin) => new URL(origin).origin),
    publicURL: String(raw.publicURL ?? '').replace(/\/+$/, ''),
    defaultReturnURL: String(raw.defaultReturnURL ?? ''),
    defaultCancelURL: String(raw.defaultCancelURL ?? ''),
    expireAfterMs: Number.isFinite(expireAfterMs) && expireAfterMs > 0 ? expireAfterMs : 10_800_000,
    fees,
    paypal: {
      clientId: String(raw.paypal?.clientId ?? ''),
      clientSecret: String(raw.paypal?.clientSecret ?? ''),
      baseURL: String(raw.paypal?.baseURL || 'https://api-m.sandbox.paypal.com'),
      timeoutMs: Number(raw.paypal?.timeoutMs) > 0 ? Number(raw.paypal.timeoutMs) : 10000
    }
  }
  if (enabled.includes('paypal') && (!settings.paypal.clientId || !settings.paypal.clientSecret)) {
    throw new Error('Invalid gateways configuration: GATEWAYS includes paypal, which needs PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET')
  }
  app.set('gatewaySettings', settings)
  return settings
}

/** The configured gateway named `name` (built once per app). */
export const gatewayOf = (app: Application, name: string): PaymentGateway => {
  const cache: Map<string, PaymentGateway> = app.get('paymentGateways') ?? new Map()
  app.set('paymentGateways', cache)
  let gateway = cache.get(name)
  if (!gateway) {
    if (name === 'sandbox') gateway = createSandboxGateway()
    else if (name === 'paypal') gateway = createPayPalGateway(gatewaySettings(app).paypal)
    else throw new Error(`gateway '${name}' has no adapter`)
    cache.set(name, gateway)
  }
  return gateway
}
