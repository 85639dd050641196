// The billing-invoices service: a facility's bills. Its own create/patch/remove hold what a POST, PATCH and DELETE do
// (createInvoiceRecord; changing or finalizing a draft: finalizeInvoice; removeInvoiceCascade).
import { Conflict } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import { ResourceService } from '../resource'
import type { CreatedFields } from '../../hooks/set-created'
import { accessOf } from '../../hooks/scope-access'
import { actorOf, finalizeScope } from '../../billing/access'
import { removeInvoiceCascade } from '../../billing/cascade'
import { finalizeInvoice } from '../../billing/finalize'
import { createInvoiceRecord } from '../../billing/records'
import { orNull } from '../../billing/store-calls'
import type { Invoice } from './billing-invoices.schema'
import {
  billingInvoicePath,
  type BillingInvoiceData,
  type BillingInvoicePatch,
  type BillingInvoiceQuery
} from './billing-invoices.shared'

export const getOptions = (): StoreOptions => ({
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

export class BillingInvoiceService extends ResourceService<
  Stored<Invoice>,
  BillingInvoiceData,
  BillingInvoicePatch,
  BillingInvoiceQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, billingInvoicePath, getOptions())
  }

  /** Creates a draft invoice with zero totals (createInvoiceRecord). */
  async create(data: BillingInvoiceData & CreatedFields, params?: InvoiceParams): Promise<Stored<Invoice>> {
    return this.write('create', null, params, () => createInvoiceRecord(this.deps, data))
  }

  /** Changes a draft invoice; with `finalize: true` finalizes it and all its items (finalizeInvoice; billing privilege). */
  async patch(
    id: NullableId,
    data: BillingInvoicePatch,
    params: InvoiceParams = {}
  ): Promise<Stored<Invoice>> {
    return this.write('patch', id, params, async () => {
      const { deps } = this
      const { invoices } = deps.stores
      const existing: Stored<Invoice> = await this.loadExisting(id as Id, params)
      const { finalize, ...fields } = data
      const notDraft = () =>
        new Conflict(`Billing invoice ${existing.id} is finalized and can no longer be changed`, {
          invoice: existing.id
        })
      if (existing.status !== 'draft') throw notDraft()
      if (finalize) {
        const scope = finalizeScope(
          params.provider ? await accessOf({ app: this.app, params }) : null,
          params.writeScope,
          existing.facility,
          deps.settings.get('billing').privilege,
          'Finalizing an invoice'
        )
        const outcome = await finalizeInvoice(deps, existing.id, actorOf(params), undefined, fields, scope)
        return outcome.invoice
      }
      const updated = await orNull(
        invoices._patch(
          existing.id,
          { ...fields, updatedAt: deps.clock.now() },
          { query: within({ status: 'draft', deleting: { $ne: true } }, params.writeScope) }
        )
      )
      if (!updated) throw notDraft()
      return updated
    })
  }

  /** Removes the invoice with its items and their payments (removeInvoiceCascade, durable). */
  async remove(id: NullableId, params: InvoiceParams = {}): Promise<Stored<Invoice>> {
    return this.write('remove', id, params, () =>
      removeInvoiceCascade(this.deps, params.existing?.id ?? (id as string), { scope: params.writeScope })
    )
  }
}
