// Recording a payment so that the sum of an item's payments can never exceed its payable amount, even with
// many payments at once on several processes, and so that a crash at whatever point leaves nothing to repair
// by hand. The item's `reserved` counter (minor units) is the sum of its payments; it only ever grows
// through one atomic conditional update (`$inc` guarded by `reserved <= amount - payment`), never a
// read-then-write. Steps:
//   1. insert the payment with status `pending` (invisible to clients);
//   2. reserve on the item: `$inc reserved` + `$push pending {key: payment id}`, only if the room is there;
//      no room → delete the pending payment and answer 409 with the remaining balance;
//   3. mark the payment `draft` (recorded);
//   4. `$pull` the pending entry from the item, refresh the invoice totals.
// Recovery (recovery.ts) finishes or undoes stale steps: a pending payment whose key is on its item is
// recorded, one whose key is not is deleted; a pending entry whose payment is gone is released.
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import type { Item } from '../services/billing-items/billing-items.schema'
import { billingItemPath } from '../services/billing-items/billing-items.shared'
import { faultPoint } from './fault'
import { toMajor, toMinor } from '../schema/money'
import { orNull } from './store-calls'
import { refreshTotalsAfterChange } from './totals'

export interface PaymentInput {
  type: string
  paymentMethod: string
  amount: number
  reference?: string
  notes?: string
  paidAt?: number
  createdAt: number
  createdBy: string | null
}

const remainingConflict = (item: Stored<Item>, amountMinor: number, decimals: number) => {
  const remaining = Math.max(0, item.amountMinor - (item.reserved ?? 0))
  const remainingBalance = toMajor(remaining, decimals)
  return new Conflict(
    `Payment of ${toMajor(amountMinor, decimals)} exceeds the remaining balance of item ${item.id}: the remaining balance is ${remainingBalance}`,
    {
      item: item.id,
      amount: toMajor(amountMinor, decimals),
      remainingBalance,
      total: toMajor(item.amountMinor, decimals)
    }
  )
}

/** Gives back a reservation exactly once (only while its pending entry is still on the item). */
export const releaseReservation = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  itemId: string,
  key: string,
  amountMinor: number
) => {
  return orNull(
    deps.stores.items._patch(
      itemId,
      {
        $inc: { reserved: -amountMinor },
        $pull: { pending: { key } },
        $set: { updatedAt: deps.clock.now() }
      },
      { query: { 'pending.key': key } }
    )
  )
}

/** Removes a settled pending entry from the item (the reservation stays: its payment is recorded). */
export const settleReservation = async (deps: Pick<Deps, 'stores'>, itemId: string, key: string) =>
  orNull(deps.stores.items._patch(itemId, { $pull: { pending: { key } } }, { query: { 'pending.key': key } }))

/** Records a payment against `item` (already checked: readable, not deleting, caller may bill). */
export const recordPayment = async (deps: Deps, item: Stored<Item>, input: PaymentInput) => {
  const { payments, items } = deps.stores
  const decimals = deps.settings.get('billing').moneyDecimals
  const amountMinor = toMinor(input.amount, decimals)
  // Cheap early answer when the item is plainly paid up (the atomic step below is what guarantees it).
  if (item.amountMinor - (item.reserved ?? 0) < amountMinor)
    throw remainingConflict(item, amountMinor, decimals)

  const payment = await payments._create({
    facility: item.facility,
    invoice: item.invoice,
    item: item.id,
    currency: item.currency,
    type: input.type,
    paymentMethod: input.paymentMethod,
    amount: toMajor(amountMinor, decimals),
    ...(input.reference !== undefined ? { reference: input.reference } : {}),
    ...(input.notes !== undefined ? { notes: input.notes } : {}),
    paidAt: input.paidAt ?? input.createdAt,
    status: 'pending',
    finalizedAt: null,
    finalizedBy: null,
    createdAt: input.createdAt,
    createdBy: input.createdBy
  })
  faultPoint('payment:inserted')

  const discard = () => orNull(payments._remove(payment.id, { query: { status: 'pending' } }))
  let current = item
  for (let attempt = 0; ; attempt++) {
    const reserved = await orNull(
      items._patch(
        current.id,
        {
          $inc: { reserved: amountMinor },
          $push: { pending: { key: payment.id, amount: amountMinor, at: deps.clock.now() } },
          $set: { updatedAt: deps.clock.now() }
        },
        {
          query: {
            amountMinor: current.amountMinor,
            reserved: { $lte: current.amountMinor - amountMinor },
            deleting: { $ne: true }
          }
        }
      )
    )
    if (reserved) {
      current = reserved
      break
    }
    // The guard failed: the item is gone, being deleted, paid up, or its amount changed meanwhile.
    const fresh = await orNull(items._get(current.id))
    if (!fresh || fresh.deleting) {
      await discard()
      throw new NotFound(`No billing item found for id '${current.id}'`)
    }
    if (fresh.amountMinor - (fresh.reserved ?? 0) < amountMinor || attempt >= 10) {
      await discard()
      throw remainingConflict(fresh, amountMinor, decimals)
    }
    current = fresh
  }
  faultPoint('payment:reserved')

  let recorded = await orNull(
    payments._patch(payment.id, { status: 'draft' }, { query: { status: 'pending' } })
  )
  if (!recorded) {
    // Someone else moved it first: recovery recorded it (fine), or an invoice/item deletion removed it.
    recorded = await orNull(payments._get(payment.id))
    if (!recorded) {
      await releaseReservation(deps, current.id, payment.id, amountMinor)
      throw new NotFound(`No billing item found for id '${current.id}'`)
    }
  }
  const settled = await settleReservation(deps, current.id, payment.id)
  if (settled) await deps.announce(billingItemPath, 'patched', settled)
  await refreshTotalsAfterChange(deps, current.invoice)
  return recorded
}
