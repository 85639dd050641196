// The Stripe card processor, on the official `stripe` SDK (the only file that imports it). Customers are
// Stripe customers; cards are card PaymentMethods attached to them; the default card is the customer's
// `invoice_settings.default_payment_method`. A `tok_…` token (Stripe.js / test tokens) is first turned into
// a PaymentMethod; a `pm_…` id is attached as it is. STRIPE_HOST / STRIPE_PORT / STRIPE_PROTOCOL point the
// SDK at a compatible server (tests run a local one). The secret key is given to the SDK only: errors are
// reduced to their kind before they leave this file, so it never reaches a response or a log line.
import Stripe from 'stripe'
import { ProcessorDeclined, ProcessorUnavailable, type CardProcessor, type ProcessorCard, type ProcessorSettings } from './index'

const isStripeError = (error: unknown): error is Stripe.errors.StripeError => error instanceof Stripe.errors.StripeError

/** A refusal of the card or token becomes ProcessorDeclined (with Stripe's message); anything else ProcessorUnavailable. */
const translate = (error: unknown, refusalsAreDeclines: boolean): never => {
  if (isStripeError(error)) {
    const status = error.statusCode ?? 0
    if (error instanceof Stripe.errors.StripeCardError) throw new ProcessorDeclined(error.message)
    if (refusalsAreDeclines && error instanceof Stripe.errors.StripeInvalidRequestError && status >= 400 && status < 500) throw new ProcessorDeclined(error.message)
    throw new ProcessorUnavailable(`stripe ${error.type}${status ? ` (HTTP ${status})` : ''}`)
  }
  throw new ProcessorUnavailable(`stripe call failed: ${error instanceof Error ? error.name : 'unknown error'}`)
}

const call = async <T>(work: () => Promise<T>, refusalsAreDeclines = false): Promise<T> => {
  try {
    return await work()
  } catch (error) {
    return translate(error, refusalsAreDeclines)
  }
}

const cardOf = (method: Stripe.PaymentMethod, defaultId: string | null): ProcessorCard => ({
  id: method.id,
  brand: method.card?.brand ?? 'unknown',
  last4: method.card?.last4 ?? '',
  expMonth: method.card?.exp_month ?? 0,
  expYear: method.card?.exp_year ?? 0,
  isDefault: method.id === defaultId
})

export const createStripeProcessor = (settings: ProcessorSettings): CardProcessor => {
  const { secretKey, host, port, protocol } = settings.stripe
  const stripe = new Stripe(secretKey, {
    timeout: settings.timeoutMs,
    // Retries are ours to decide (a failed call is a 502 with nothing half-saved).
    maxNetworkRetries: 0,
    telemetry: false,
    ...(host ? { host } : {}),
    ...(port ? { port } : {}),
    ...(protocol ? { protocol: protocol as 'http' | 'https' } : {})
  })

  const defaultOf = async (customer: string): Promise<string | null> => {
    const found = await call(() => stripe.customers.retrieve(customer))
    if ((found as Stripe.DeletedCustomer).deleted) throw new ProcessorUnavailable('stripe customer was deleted')
    const setting = (found as Stripe.Customer).invoice_settings?.default_payment_method ?? null
    return typeof setting === 'string' ? setting : (setting?.id ?? null)
  }

  return {
    kind: 'stripe',
    async createCustomer({ email, reference }) {
      const created = await call(() => stripe.customers.create({ ...(email ? { email } : {}), metadata: { reference } }))
      return created.id
    },
    async deleteCustomer(customer) {
      await call(() => stripe.customers.del(customer))
    },
    async updateEmail(customer, email) {
      await call(() => stripe.customers.update(customer, { email }))
    },
    async addCard(customer, token) {
      const method = token.startsWith('tok_') ? (await call(() => stripe.paymentMethods.create({ type: 'card', card: { token } }), true)).id : token
      const attached = await call(() => stripe.paymentMethods.attach(method, { customer }), true)
      return cardOf(attached, null)
    },
    async listCards(customer) {
      const defaultId = await defaultOf(customer)
      // Stripe lists the most recently attached first.
      const list = await call(() => stripe.customers.listPaymentMethods(customer, { type: 'card', limit: 100 }))
      return list.data.map((method) => cardOf(method, defaultId))
    },
    async removeCard(_customer, card) {
      await call(() => stripe.paymentMethods.detach(card))
    },
    async setDefaultCard(customer, card) {
      // An empty string clears the setting (Stripe's way of unsetting a field).
      await call(() => stripe.customers.update(customer, { invoice_settings: { default_payment_method: card ?? '' } }))
    }
  }
}
