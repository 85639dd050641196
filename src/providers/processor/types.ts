// The card processor's interface and errors, shared by the adapters (sandbox, stripe) and whoever picks one
// (index.ts): adapters import only this file, so nothing circles back to the file that chooses between them.
import type { Configuration } from '../../configuration'

/** A saved card as clients see it (never the number: brand, last four digits and expiry only). */
export interface ProcessorCard {
  id: string
  brand: string
  last4: string
  expMonth: number
  expYear: number
  isDefault: boolean
}

export interface CardProcessor {
  kind: 'sandbox' | 'stripe'
  /** Creates a processor customer; resolves to its processor id. */
  createCustomer(input: { email?: string; reference: string }): Promise<string>
  /** Removes a processor customer (compensation when saving our side fails). */
  deleteCustomer(customer: string): Promise<void>
  /** Changes the customer's email at the processor. */
  updateEmail(customer: string, email: string): Promise<void>
  /** Saves the card behind `token` on the customer; resolves to the saved card (not yet the default). */
  addCard(customer: string, token: string): Promise<ProcessorCard>
  /** The customer's cards, most recently added first, the default marked. */
  listCards(customer: string): Promise<ProcessorCard[]>
  /** Removes a card from the customer. */
  removeCard(customer: string, card: string): Promise<void>
  /** Makes `card` the customer's default (`null`: no default). */
  setDefaultCard(customer: string, card: string | null): Promise<void>
  /** Opens a hosted checkout for a one-off amount; the payer pays at its `url`. */
  createCheckout(input: CheckoutInput): Promise<CheckoutSession>
  /** Charges the customer's default card without the payer present; ProcessorDeclined when there is none or it is refused. */
  chargeDefaultCard(customer: string, input: ChargeInput): Promise<{ id: string }>
  /**
   * A checkout event the processor pushed to this server, verified against its signature (ProcessorEventRejected
   * when it does not verify); null for events that are not about a checkout's outcome.
   */
  checkoutEvent(payload: string, signature: string): CheckoutEvent | null
}

export interface CheckoutInput {
  /** Our reference for the payment (e.g. the subscription id); the processor keeps it with the session. */
  reference: string
  /** In the smallest currency unit. */
  amount: number
  currency: string
  description: string
  successURL: string
  cancelURL: string
  /** When the session stops accepting payment (ms since the epoch). */
  expiresAt: number
  /** This server's public origin (the sandbox serves its checkout page from here). */
  origin: string
}

export interface CheckoutSession {
  id: string
  url: string
  expiresAt: number
}

export interface ChargeInput {
  amount: number
  currency: string
  /** Unique per charge attempt: a retried call with the same reference charges once. */
  reference: string
  description: string
}

export interface CheckoutEvent {
  outcome: 'completed' | 'failed'
  session: string
}

/** A pushed processor event whose signature does not verify (or that cannot be read): a 400, nothing applied. */
export class ProcessorEventRejected extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProcessorEventRejected'
  }
}

/** The processor refused the token or card (declined, expired, invalid): a 402 with its message. */
export class ProcessorDeclined extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProcessorDeclined'
  }
}

/** The processor could not be reached, timed out or failed: a 502 (its details stay in the server). */
export class ProcessorUnavailable extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'ProcessorUnavailable'
  }
}

/** Config `processor`: which processor, the upper bound of one call, and Stripe's connection. */
export type ProcessorSettings = Configuration['processor']
