// The billing-payments service: money received against one item. Its own create/patch hold what a POST and PATCH
// do (recordPayment under the item's balance; changing, finalizing or voiding a payment).
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { StoreAdapter } from '../../store/adapter'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import type { CreatedFields } from '../../hooks/set-created'
import { invalid } from '../../schema/validators'
import { actorOf } from '../../billing/hooks'
import { recordPayment } from '../../billing/payments'
import { orNull, stores } from '../../billing/stores'
import { voidPayment } from '../../billing/void'
import type { Payment } from './billing-payments.schema'
import type { BillingPaymentData, BillingPaymentPatch, BillingPaymentQuery } from './billing-payments.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'billing-payments',
  indexes: [
    { fields: { item: 1 } },
    { fields: { invoice: 1 } },
    { fields: { facility: 1 } },
    // Recovery looks up payments whose recording never finished.
    { fields: { status: 1 } },
    // …and voids whose release did not finish.
    { fields: { voidPending: 1 }, sparse: true }
  ]
})

type PaymentParams = StoreParams<BillingPaymentQuery>

export class BillingPaymentService extends StoreAdapter<
  Stored<Payment>,
  BillingPaymentData,
  BillingPaymentPatch,
  BillingPaymentQuery
> {
  constructor(app: Application) {
    super(app, getOptions(app))
  }

  /** Records a payment against its item (404 for a missing item; 409 past the item's balance: recordPayment). */
  async create(data: BillingPaymentData & CreatedFields, _params?: PaymentParams): Promise<Stored<Payment>> {
    const item = await orNull(stores(this.app).items._get(data.item))
    if (!item || item.deleting) throw new NotFound(`No billing item found for id '${data.item}'`)
    return recordPayment(this.app, item, data)
  }

  /**
   * Changes a draft payment's details; `finalize: true` finalizes it in the same write; `void: true` voids a draft
   * or finalized payment (nothing else may be sent with it but `voidReason`: voidPayment).
   */
  async patch(
    id: NullableId,
    data: BillingPaymentPatch,
    params: PaymentParams = {}
  ): Promise<Stored<Payment>> {
    const { payments } = stores(this.app)
    const existing = params.existing ?? (await payments._get(id as Id))
    const { void: voiding, voidReason, ...rest } = data
    if (voiding) {
      const extra = Object.keys(rest)
      if (extra.length)
        throw invalid(
          'data',
          extra.map((field) => ({ field, message: 'cannot be changed together with void' }))
        )
      return voidPayment(this.app, existing.id, actorOf({ params }), voidReason, params.writeScope)
    }
    if (voidReason !== undefined)
      throw invalid('data', [{ field: 'voidReason', message: 'is only accepted with void: true' }])
    const notDraft = () =>
      new Conflict(`Billing payment ${existing.id} is ${existing.status} and can no longer be changed`, {
        payment: existing.id
      })
    if (existing.status !== 'draft') throw notDraft()
    const { finalize, ...fields } = rest
    const now = Date.now()
    const changes = {
      ...fields,
      updatedAt: now,
      ...(finalize ? { status: 'finalized', finalizedAt: now, finalizedBy: actorOf({ params }) } : {})
    }
    const updated = await orNull(
      payments._patch(existing.id, changes, { query: within({ status: 'draft' }, params.writeScope) })
    )
    if (!updated) throw notDraft()
    return updated
  }
}
