// The Stripe card processor, on the official `stripe` SDK (the only file that imports it). Customers are
// Stripe customers; cards are card PaymentMethods attached to them; the default card is the customer's
// `invoice_settings.default_payment_method`. A `tok_…` token (Stripe.js / test tokens) is first turned into
// a PaymentMethod; a `pm_…` id is attached as it is. STRIPE_HOST / STRIPE_PORT / STRIPE_PROTOCOL point the
// SDK at a compatible server (tests run a local one). The secret key is given to the SDK only: errors are
// reduced to their kind before they leave this file, so it never reaches a response or a log line.
// Subscriptions: a checkout is a Checkout Session in `payment` mode for one amount; its outcome arrives as a signed
// event (checkout.session.completed / async_payment_succeeded → completed; async_payment_failed / expired →
// failed), verified with STRIPE_WEBHOOK_SECRET by the SDK; renewals charge the customer's default card with a
// confirmed off-session PaymentIntent (the reference is its idempotency key).
import Stripe from 'stripe'
import {
  ProcessorDeclined,
  ProcessorEventRejected,
  ProcessorUnavailable,
  type CardProcessor,
  type CheckoutEvent,
  type ProcessorCard,
  type ProcessorSettings
} from './types'

const isStripeError = (error: unknown): error is Stripe.errors.StripeError =>
  error instanceof Stripe.errors.StripeError

/** A refusal of the card or token becomes ProcessorDeclined (with Stripe's message); anything else ProcessorUnavailable. */
const translate = (error: unknown, refusalsAreDeclines: boolean): never => {
  if (isStripeError(error)) {
    const status = error.statusCode ?? 0
    if (error instanceof Stripe.errors.StripeCardError) throw new ProcessorDeclined(error.message)
    if (
      refusalsAreDeclines &&
      error instanceof Stripe.errors.StripeInvalidRequestError &&
      status >= 400 &&
      status < 500
    )
      throw new ProcessorDeclined(error.message)
    throw new ProcessorUnavailable(`stripe ${error.type}${status ? ` (HTTP ${status})` : ''}`)
  }
  throw new ProcessorUnavailable(
    `stripe call failed: ${error instanceof Error ? error.name : 'unknown error'}`
  )
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
  const { secretKey, host, port, protocol, webhookSecret } = settings.stripe
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
    if ((found as Stripe.DeletedCustomer).deleted)
      throw new ProcessorUnavailable('stripe customer was deleted')
    const setting = (found as Stripe.Customer).invoice_settings?.default_payment_method ?? null
    return typeof setting === 'string' ? setting : (setting?.id ?? null)
  }

  return {
    kind: 'stripe',
    async createCustomer({ email, reference }) {
      const created = await call(() =>
        stripe.customers.create({ ...(email ? { email } : {}), metadata: { reference } })
      )
      return created.id
    },
    async deleteCustomer(customer) {
      await call(() => stripe.customers.del(customer))
    },
    async updateEmail(customer, email) {
      await call(() => stripe.customers.update(customer, { email }))
    },
    async addCard(customer, token) {
      const method = token.startsWith('tok_')
        ? (await call(() => stripe.paymentMethods.create({ type: 'card', card: { token } }), true)).id
        : token
      const attached = await call(() => stripe.paymentMethods.attach(method, { customer }), true)
      return cardOf(attached, null)
    },
    async listCards(customer) {
      const defaultId = await defaultOf(customer)
      // Stripe lists the most recently attached first.
      const list = await call(() =>
        stripe.customers.listPaymentMethods(customer, { type: 'card', limit: 100 })
      )
      return list.data.map((method) => cardOf(method, defaultId))
    },
    async removeCard(_customer, card) {
      await call(() => stripe.paymentMethods.detach(card))
    },
    async setDefaultCard(customer, card) {
      // An empty string clears the setting (Stripe's way of unsetting a field).
      await call(() =>
        stripe.customers.update(customer, { invoice_settings: { default_payment_method: card ?? '' } })
      )
    },
    async createCheckout({ reference, amount, currency, description, successURL, cancelURL, expiresAt }) {
      const session = await call(() =>
        stripe.checkout.sessions.create({
          mode: 'payment',
          client_reference_id: reference,
          metadata: { reference },
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: currency.toLowerCase(),
                unit_amount: amount,
                product_data: { name: description }
              }
            }
          ],
          success_url: successURL,
          cancel_url: cancelURL,
          expires_at: Math.floor(expiresAt / 1000)
        })
      )
      if (!session.url) throw new ProcessorUnavailable('stripe checkout session without a url')
      return { id: session.id, url: session.url, expiresAt: session.expires_at * 1000 }
    },
    async chargeDefaultCard(customer, { amount, currency, reference, description }) {
      const method = await defaultOf(customer)
      if (!method) throw new ProcessorDeclined('The customer has no default card.')
      const intent = await call(
        () =>
          stripe.paymentIntents.create(
            {
              amount,
              currency: currency.toLowerCase(),
              customer,
              payment_method: method,
              off_session: true,
              confirm: true,
              description,
              metadata: { reference }
            },
            { idempotencyKey: reference }
          ),
        true
      )
      if (intent.status !== 'succeeded') throw new ProcessorDeclined(`The charge is ${intent.status}.`)
      return { id: intent.id }
    },
    checkoutEvent(payload, signature): CheckoutEvent | null {
      if (!webhookSecret) throw new ProcessorEventRejected('STRIPE_WEBHOOK_SECRET is not set')
      let event: Stripe.Event
      try {
        event = stripe.webhooks.constructEvent(payload, signature, webhookSecret)
      } catch {
        throw new ProcessorEventRejected('The Stripe-Signature header does not verify')
      }
      if (!event.type.startsWith('checkout.session.')) return null
      const session = event.data.object as Stripe.Checkout.Session
      if (event.type === 'checkout.session.completed')
        return session.payment_status === 'unpaid' ? null : { outcome: 'completed', session: session.id }
      if (event.type === 'checkout.session.async_payment_succeeded')
        return { outcome: 'completed', session: session.id }
      if (event.type === 'checkout.session.async_payment_failed' || event.type === 'checkout.session.expired')
        return { outcome: 'failed', session: session.id }
      return null
    }
  }
}
