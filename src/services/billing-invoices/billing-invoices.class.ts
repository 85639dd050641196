// The billing-invoices service: a facility's bills. Its own create/patch/remove hold what a POST, PATCH and DELETE do
// (createInvoiceRecord; changing or finalizing a draft: finalizeInvoice; removeInvoiceCascade).
import { Conflict } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { StoreAdapter } from '../../store/adapter'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import type { CreatedFields } from '../../hooks/set-created'
import { removeInvoiceCascade } from '../../billing/cascade'
import { finalizeInvoice } from '../../billing/finalize'
import { actorOf, finalizeScope } from '../../billing/hooks'
import { createInvoiceRecord } from '../../billing/records'
import { orNull, stores } from '../../billing/stores'
import type { Invoice } from './billing-invoices.schema'
import type { BillingInvoiceData, BillingInvoicePatch, BillingInvoiceQuery } from './billing-invoices.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'billing-invoices',
  indexes: [
    { fields: { facility: 1 } },
    { fields: { subject: 1 } },
    { fields: { encounter: 1 } },
    // Recovery looks up unfinished cascades and finalizations.
    { fields: { deletingAt: 1 }, sparse: true },
    { fields: { 'finalizePending.at': 1 }, sparse: true }
  ]
})

type InvoiceParams = StoreParams<BillingInvoiceQuery>

export class BillingInvoiceService extends StoreAdapter<
  Stored<Invoice>,
  BillingInvoiceData,
  BillingInvoicePatch,
  BillingInvoiceQuery
> {
  constructor(app: Application) {
    super(app, getOptions(app))
  }

  /** Creates a draft invoice with zero totals (createInvoiceRecord). */
  async create(data: BillingInvoiceData & CreatedFields, _params?: InvoiceParams): Promise<Stored<Invoice>> {
    return createInvoiceRecord(this.app, data)
  }

  /** Changes a draft invoice; with `finalize: true` finalizes it and all its items (finalizeInvoice; billing privilege). */
  async patch(
    id: NullableId,
    data: BillingInvoicePatch,
    params: InvoiceParams = {}
  ): Promise<Stored<Invoice>> {
    const { app } = this
    const { invoices } = stores(app)
    const existing = params.existing ?? (await invoices._get(id as Id))
    const { finalize, ...fields } = data
    const notDraft = () =>
      new Conflict(`Billing invoice ${existing.id} is finalized and can no longer be changed`, {
        invoice: existing.id
      })
    if (existing.status !== 'draft') throw notDraft()
    if (finalize) {
      const scope = await finalizeScope({ app, params }, existing, 'Finalizing an invoice')
      const outcome = await finalizeInvoice(app, existing.id, actorOf({ params }), undefined, fields, scope)
      return outcome.invoice
    }
    const updated = await orNull(
      invoices._patch(
        existing.id,
        { ...fields, updatedAt: Date.now() },
        { query: within({ status: 'draft', deleting: { $ne: true } }, params.writeScope) }
      )
    )
    if (!updated) throw notDraft()
    return updated
  }

  /** Removes the invoice with its items and their payments (removeInvoiceCascade, durable). */
  async remove(id: NullableId, params: InvoiceParams = {}): Promise<Stored<Invoice>> {
    return removeInvoiceCascade(this.app, params.existing?.id ?? (id as string), { scope: params.writeScope })
  }
}
