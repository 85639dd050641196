// The sandbox card processor: in-process, no network, deterministic. Its customers and cards live in this
// process's memory (for development and tests; they are gone after a restart and not shared between
// instances). Test tokens:
//   tok_visa, tok_mastercard, tok_amex   save a card (Visa 4242, Mastercard 4444, Amex 8431, expiring 12/2034)
//   tok_chargeDeclined                   402 "Your card was declined."
//   tok_expired                          402 "Your card has expired."
//   tok_processorDown                    502 (simulates a processor outage)
//   tok_chargeCustomerFail               saves a card (Visa 0341) whose charges are declined
// Any other token: 402 "No such token".
// Checkout sessions are pages of this server (GET /processor/sandbox/checkout/:session, with a Pay and a Fail
// button; src/subscriptions/checkout-page.ts); the session id is random and unguessable. Charges of a default card
// succeed unless it is the tok_chargeCustomerFail card. Nothing is ever pushed, so checkoutEvent answers null.
import crypto from 'node:crypto'
import { ProcessorDeclined, ProcessorUnavailable, type CardProcessor, type ProcessorCard } from './types'

/** The sandbox's checkout page for a session (served by this app). */
export const sandboxCheckoutPath = (session: string) => `/processor/sandbox/checkout/${session}`

const cards: Record<string, { brand: string; last4: string }> = {
  tok_visa: { brand: 'visa', last4: '4242' },
  tok_mastercard: { brand: 'mastercard', last4: '4444' },
  tok_amex: { brand: 'amex', last4: '8431' },
  tok_chargeCustomerFail: { brand: 'visa', last4: '0341' }
}

const refusals: Record<string, string> = {
  tok_chargeDeclined: 'Your card was declined.',
  tok_expired: 'Your card has expired.'
}

interface SandboxCustomer {
  email?: string
  cards: { card: Omit<ProcessorCard, 'isDefault'>; added: number }[]
  defaultCard: string | null
}

export const createSandboxProcessor = (): CardProcessor => {
  const customers = new Map<string, SandboxCustomer>()
  let sequence = 0
  const customerOf = (id: string) => {
    const customer = customers.get(id)
    if (!customer) throw new ProcessorUnavailable(`sandbox customer ${id} is not in this process`)
    return customer
  }
  return {
    kind: 'sandbox',
    async createCustomer({ email }) {
      const id = `cus_sandbox_${crypto.randomBytes(8).toString('hex')}`
      customers.set(id, { email, cards: [], defaultCard: null })
      return id
    },
    async deleteCustomer(id) {
      customers.delete(id)
    },
    async updateEmail(id, email) {
      customerOf(id).email = email
    },
    async addCard(id, token) {
      const customer = customerOf(id)
      if (token === 'tok_processorDown') throw new ProcessorUnavailable('sandbox outage token')
      // Own keys only: a token named like an Object member (`constructor`, `__proto__`) is just an unknown token.
      if (Object.hasOwn(refusals, token)) throw new ProcessorDeclined(refusals[token])
      const known = Object.hasOwn(cards, token) ? cards[token] : undefined
      if (!known) throw new ProcessorDeclined(`No such token: '${token}'`)
      const card = {
        id: `card_sandbox_${crypto.randomBytes(8).toString('hex')}`,
        ...known,
        expMonth: 12,
        expYear: 2034
      }
      customer.cards.push({ card, added: ++sequence })
      return { ...card, isDefault: false }
    },
    async listCards(id) {
      const customer = customerOf(id)
      return [...customer.cards]
        .sort((a, b) => b.added - a.added)
        .map(({ card }) => ({ ...card, isDefault: card.id === customer.defaultCard }))
    },
    async removeCard(id, card) {
      const customer = customerOf(id)
      customer.cards = customer.cards.filter((entry) => entry.card.id !== card)
      if (customer.defaultCard === card) customer.defaultCard = null
    },
    async setDefaultCard(id, card) {
      customerOf(id).defaultCard = card
    },
    async createCheckout({ origin, expiresAt }) {
      const id = `cs_sandbox_${crypto.randomBytes(16).toString('hex')}`
      return { id, url: `${origin}${sandboxCheckoutPath(id)}`, expiresAt }
    },
    async chargeDefaultCard(id) {
      const customer = customerOf(id)
      const card = customer.cards.find((entry) => entry.card.id === customer.defaultCard)
      if (!card) throw new ProcessorDeclined('The customer has no default card.')
      if (card.card.last4 === cards.tok_chargeCustomerFail.last4)
        throw new ProcessorDeclined('Your card was declined.')
      return { id: `ch_sandbox_${crypto.randomBytes(8).toString('hex')}` }
    },
    checkoutEvent() {
      return null
    }
  }
}
