// The billing-payments service: money received against one item. Its own create/patch hold what a POST and PATCH
// do (recordPayment under the item's balance; changing, finalizing or voiding a payment).
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import { ResourceService } from '../resource'
import type { CreatedFields } from '../../hooks/set-created'
import { invalid } from '../../schema/validators'
import { actorOf } from '../../billing/access'
import { recordPayment } from '../../billing/payments'
import { orNull } from '../../billing/store-calls'
import { voidPayment } from '../../billing/void'
import type { Payment } from './billing-payments.schema'
import {
  billingPaymentPath,
  type BillingPaymentData,
  type BillingPaymentPatch,
  type BillingPaymentQuery
} from './billing-payments.shared'

export const getOptions = (): StoreOptions => ({
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

export class BillingPaymentService extends ResourceService<
  Stored<Payment>,
  BillingPaymentData,
  BillingPaymentPatch,
  BillingPaymentQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, billingPaymentPath, getOptions())
  }

  /** Records a payment against its item (404 for a missing item; 409 past the item's balance: recordPayment). */
  async create(data: BillingPaymentData & CreatedFields, params?: PaymentParams): Promise<Stored<Payment>> {
    return this.write('create', null, params, async () => {
      const item = await orNull(this.deps.stores.items._get(data.item))
      if (!item || item.deleting) throw new NotFound(`No billing item found for id '${data.item}'`)
      return recordPayment(this.deps, item, data)
    })
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
    return this.write('patch', id, params, () => this.changePayment(id, data, params))
  }

  private async changePayment(
    id: NullableId,
    data: BillingPaymentPatch,
    params: PaymentParams
  ): Promise<Stored<Payment>> {
    const { deps } = this
    const { payments } = deps.stores
    const existing: Stored<Payment> = await this.loadExisting(id as Id, params)
    const { void: voiding, voidReason, ...rest } = data
    if (voiding) {
      const extra = Object.keys(rest)
      if (extra.length)
        throw invalid(
          'data',
          extra.map((field) => ({ field, message: 'cannot be changed together with void' }))
        )
      return voidPayment(deps, existing.id, actorOf(params), voidReason, params.writeScope)
    }
    if (voidReason !== undefined)
      throw invalid('data', [{ field: 'voidReason', message: 'is only accepted with void: true' }])
    const notDraft = () =>
      new Conflict(`Billing payment ${existing.id} is ${existing.status} and can no longer be changed`, {
        payment: existing.id
      })
    if (existing.status !== 'draft') throw notDraft()
    const { finalize, ...fields } = rest
    const now = deps.clock.now()
    const changes = {
      ...fields,
      updatedAt: now,
      ...(finalize ? { status: 'finalized', finalizedAt: now, finalizedBy: actorOf(params) } : {})
    }
    const updated = await orNull(
      payments._patch(existing.id, changes, { query: within({ status: 'draft' }, params.writeScope) })
    )
    if (!updated) throw notDraft()
    return updated
  }
}
