// Voiding a payment (interface: payments are never deleted on their own): a payment recorded by mistake, or
// money given back, is voided — it stays, with `status: 'voided'`, who voided it, when and why, so the books
// keep their audit trail — and its amount no longer counts as paid on its item (the balance is owed again).
// Steps, each idempotent, with the first as the durable record of the rest:
//   1. the payment becomes `voided` with `voidPending: true` (only from draft or finalized: one void wins);
//   2. the item's `reserved` drops by the amount, exactly once: the same write records the payment id under
//      the item's `voided` map and is conditional on it not being there yet;
//   3. `voidPending` is cleared and the invoice totals refreshed.
// Startup recovery (recovery.ts) repeats 2–3 for a payment left with `voidPending`.
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { within } from '../access/rules'
import type { Payment } from '../services/billing-payments/billing-payments.schema'
import { billingItemPath } from '../services/billing-items/billing-items.shared'
import { faultPoint } from './fault'
import { toMinor } from '../schema/money'
import { orNull } from './store-calls'
import { refreshTotalsAfterChange } from './totals'

/** Steps 2–3 for a payment already marked voided (also run by recovery). */
export const completeVoid = async (
  deps: Deps,
  payment: Stored<Payment>,
  options: { recovering?: boolean } = {}
): Promise<Stored<Payment>> => {
  const { items, payments } = deps.stores
  const amountMinor = toMinor(payment.amount, deps.settings.get('billing').moneyDecimals)
  const key = `voided.${payment.id}`
  const item = await orNull(
    items._patch(
      payment.item,
      { $inc: { reserved: -amountMinor }, $set: { [key]: amountMinor, updatedAt: deps.clock.now() } },
      { query: { [key]: { $exists: false } } }
    )
  )
  if (item) await deps.announce(billingItemPath, 'patched', item)
  faultPoint('void:released', options)
  const done = await orNull(payments._patch(payment.id, { voidPending: null }))
  await refreshTotalsAfterChange(deps, payment.invoice)
  return done ?? payment
}

/** Voids a draft or finalized payment; `scope` (the caller's write scope) is part of the first write's query. */
export const voidPayment = async (
  deps: Deps,
  paymentId: string,
  by: string | null,
  reason: string | undefined,
  scope?: Query
) => {
  const { payments } = deps.stores
  const now = deps.clock.now()
  const voided = await orNull(
    payments._patch(
      paymentId,
      {
        status: 'voided',
        voidedAt: now,
        voidedBy: by,
        ...(reason !== undefined ? { voidReason: reason } : {}),
        voidPending: true,
        updatedAt: now
      },
      { query: within({ status: { $in: ['draft', 'finalized'] } }, scope) }
    )
  )
  if (!voided) {
    const fresh = await orNull(payments._get(paymentId, { query: within({}, scope) }))
    if (!fresh) throw new NotFound(`No billing payment found for id '${paymentId}'`)
    throw new Conflict(`Billing payment ${paymentId} is ${fresh.status} and cannot be voided`, {
      payment: paymentId,
      status: fresh.status
    })
  }
  faultPoint('void:marked')
  return completeVoid(deps, voided)
}
