// The payment gateways' interface and errors, shared by the adapters (sandbox, paypal) and whoever picks one
// (index.ts): adapters import only this file, so nothing circles back to the file that chooses between them.

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
