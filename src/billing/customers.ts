// Billing customers: who pays with saved cards. A customer belongs to exactly one owner — an account or an
// organization — and mirrors one customer at the card processor (src/providers/processor/), which alone
// holds the cards. The rules:
// - one customer per owner (a second is a 409 naming the existing one; a unique index on `ownerKey` holds
//   it under concurrency);
// - the card saved last becomes the default; deleting the default card promotes the most recently added
//   remaining card (as Stripe does for sources); deleting the last card leaves no default;
// - a card id that is not one of this customer's cards is a 400 naming it;
// - the processor's refusal of a token is a 402 with its message; an outage or timeout is a 502, and what
//   was already done at the processor in that call is undone, so nothing is half-saved.
import { BadGateway, BadRequest, Conflict, PaymentError } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { Logger } from '../logger'
import { ProcessorDeclined, ProcessorUnavailable, type ProcessorCard } from '../providers/processor'
import type { Customer } from '../services/billing-customers/billing-customers.schema'
import type { Stored } from '../store'

export const customerPath = 'billing/customers'

export interface CustomerOwner {
  account?: string
  organization?: string
}

/** The one key per owner the unique index holds. */
export const ownerKeyOf = (owner: CustomerOwner) =>
  owner.account ? `account:${owner.account}` : `organization:${owner.organization}`

/** Processor errors as client errors: 402 with the processor's message, 502 without details. */
export const processorFailure = (logger: Logger, error: unknown): never => {
  if (error instanceof ProcessorDeclined) throw new PaymentError(error.message)
  if (error instanceof ProcessorUnavailable) {
    logger.warn(`Card processor unavailable: ${error.message}`)
    throw new BadGateway('The card processor is unavailable; nothing was changed, try again later')
  }
  throw error
}

/** Best-effort undo of a processor step (a failed undo is logged, never hides the original failure). */
const undo = async (logger: Logger, what: string, step: () => Promise<void>) => {
  try {
    await step()
  } catch (error) {
    logger.warn(
      `Card processor: could not undo ${what}: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}

const conflictWith = (existing: { id: string }, owner: CustomerOwner) =>
  new Conflict(
    `A billing customer already exists for this ${owner.account ? 'account' : 'organization'}: ${existing.id}`,
    { customer: existing.id }
  )

/** Saves the card behind `token` and makes it the default; on a failure the card is removed again. */
const saveDefaultCard = async (
  deps: Deps,
  processorCustomer: string,
  token: string
): Promise<ProcessorCard> => {
  const processor = deps.providers.processor()
  const card = await processor.addCard(processorCustomer, token)
  try {
    await processor.setDefaultCard(processorCustomer, card.id)
  } catch (error) {
    await undo(deps.logger, `card ${card.id}`, () => processor.removeCard(processorCustomer, card.id))
    throw error
  }
  return { ...card, isDefault: true }
}

/**
 * Creates a customer. Steps:
 * 1. an existing customer of the owner: 409 naming it (before a processor call);
 * 2. create the processor customer; with a token, save the card as the default (undone on failure);
 * 3. store the customer (a concurrent twin loses on the unique `ownerKey`: its processor customer is removed
 *    and it is a 409 naming the winner).
 */
export const createCustomer = async (
  deps: Deps,
  data: {
    owner: CustomerOwner
    processorToken?: string
    processorEmail?: string
    createdAt: number
    createdBy: string | null
  }
) => {
  const store = deps.stores.customers
  const ownerKey = ownerKeyOf(data.owner)
  const [existing] = await store._find({ query: { ownerKey }, paginate: false })
  if (existing) throw conflictWith(existing, data.owner)
  const processor = deps.providers.processor()
  let processorCustomerId: string
  try {
    processorCustomerId = await processor.createCustomer({ email: data.processorEmail, reference: ownerKey })
  } catch (error) {
    return processorFailure(deps.logger, error)
  }
  try {
    if (data.processorToken) await saveDefaultCard(deps, processorCustomerId, data.processorToken)
  } catch (error) {
    await undo(deps.logger, `customer ${processorCustomerId}`, () =>
      processor.deleteCustomer(processorCustomerId)
    )
    return processorFailure(deps.logger, error)
  }
  try {
    return await store._create({
      owner: data.owner.account ? { account: data.owner.account } : { organization: data.owner.organization },
      ownerKey,
      processor: processor.kind,
      processorCustomerId,
      ...(data.processorEmail ? { processorEmail: data.processorEmail } : {}),
      createdAt: data.createdAt,
      createdBy: data.createdBy,
      updatedAt: data.createdAt
    })
  } catch (error) {
    await undo(deps.logger, `customer ${processorCustomerId}`, () =>
      processor.deleteCustomer(processorCustomerId)
    )
    if ((error as { code?: unknown } | null)?.code === 409) {
      const [winner] = await store._find({ query: { ownerKey }, paginate: false })
      if (winner) throw conflictWith(winner, data.owner)
    }
    throw error
  }
}

/** The customer's saved cards, most recently added first, the default marked. */
export const customerCards = async (deps: Deps, customer: { processorCustomerId: string }) => {
  try {
    return await deps.providers.processor().listCards(customer.processorCustomerId)
  } catch (error) {
    return processorFailure(deps.logger, error)
  }
}

/** The card `cardId` among the customer's cards, or a 400 naming it. */
const requireOwnCard = (cards: ProcessorCard[], cardId: string, field: string) => {
  const card = cards.find((candidate) => candidate.id === cardId)
  if (!card)
    throw new BadRequest(`Card '${cardId}' is not a saved card of this customer`, {
      errors: [{ field, message: `'${cardId}' is not a saved card of this customer` }]
    })
  return card
}

export type CustomerChange =
  | { processorToken: string }
  | { processorEmail: string }
  | { deleteCard: string }
  | { setDefaultCard: string }

/**
 * Changes a customer's cards or email at the processor (one change per call), then stamps `updatedAt`
 * within the caller's write scope. Steps by change:
 * - processorToken: save the card and make it the default (undone on failure);
 * - deleteCard: check the card is the customer's (400); when it is the default, make the most recently added
 *   remaining card the default first; then remove it (a failed removal restores the default; no card left:
 *   no default);
 * - setDefaultCard: check the card is the customer's (400), make it the default;
 * - processorEmail: change the email at the processor, then in the store.
 */
export const changeCustomer = async (
  deps: Deps,
  existing: Stored<Customer>,
  change: CustomerChange,
  writeScope?: Record<string, unknown>
) => {
  const processor = deps.providers.processor()
  const customer = existing.processorCustomerId
  const fields: Record<string, unknown> = {}
  try {
    if ('processorToken' in change) {
      await saveDefaultCard(deps, customer, change.processorToken)
    } else if ('deleteCard' in change) {
      const cards = await processor.listCards(customer)
      const card = requireOwnCard(cards, change.deleteCard, '$deleteProcessorCard')
      // The successor becomes the default first, so a failed removal can be undone (a removal cannot).
      const next = cards.find((candidate) => candidate.id !== card.id)
      if (card.isDefault && next) await processor.setDefaultCard(customer, next.id)
      try {
        await processor.removeCard(customer, card.id)
      } catch (error) {
        if (card.isDefault && next)
          await undo(deps.logger, `default card ${next.id}`, () =>
            processor.setDefaultCard(customer, card.id)
          )
        throw error
      }
    } else if ('setDefaultCard' in change) {
      const cards = await processor.listCards(customer)
      requireOwnCard(cards, change.setDefaultCard, '$setDefaultProcessorCard')
      await processor.setDefaultCard(customer, change.setDefaultCard)
    } else {
      await processor.updateEmail(customer, change.processorEmail)
      fields.processorEmail = change.processorEmail
    }
  } catch (error) {
    return processorFailure(deps.logger, error)
  }
  return deps.stores.customers._patch(
    existing.id,
    { ...fields, updatedAt: deps.clock.now() },
    { query: writeScope ?? {} }
  )
}
