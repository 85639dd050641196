// The billing-items service: lines of an invoice. Its own create/patch/remove hold what a POST, PATCH and DELETE do
// (adding a priced item to a draft invoice, changing or finalizing a draft item, removing one with its payments).
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import { ResourceService } from '../resource'
import type { CreatedFields } from '../../hooks/set-created'
import { accessOf } from '../../hooks/scope-access'
import { invalid } from '../../schema/validators'
import { actorOf, finalizeScope } from '../../billing/access'
import { removeItemCascade } from '../../billing/cascade'
import { faultPoint } from '../../billing/fault'
import { amountMinorOf, maxAmountMinor, toMajor } from '../../schema/money'
import { orNull } from '../../billing/store-calls'
import { refreshTotalsAfterChange } from '../../billing/totals'
import type { Item } from './billing-items.schema'
import {
  billingItemPath,
  type BillingItemData,
  type BillingItemPatch,
  type BillingItemQuery
} from './billing-items.shared'

export const getOptions = (): StoreOptions => ({
  name: 'billing-items',
  indexes: [
    { fields: { invoice: 1 } },
    { fields: { facility: 1 } },
    // Recovery: unfinished cascades, stale reservations, and the sweep over recent changes.
    { fields: { deletingAt: 1 }, sparse: true },
    { fields: { 'pending.at': 1 }, sparse: true },
    { fields: { updatedAt: 1 } }
  ],
  // Voiding a payment releases its amount once: conditional on `voided.<payment id>` not existing yet.
  operators: ['$exists']
})

/** Items of this type reference a service of the catalogue (`ref` = service id). */
export const serviceItemType = 'service'

type ItemParams = StoreParams<BillingItemQuery>

const invoiceFinalized = (invoiceId: string) =>
  new Conflict(`Billing invoice ${invoiceId} is finalized: items can only be added to a draft invoice`, {
    invoice: invoiceId
  })

const itemFinalized = (itemId: string, action: string) =>
  new Conflict(`Billing item ${itemId} is finalized and cannot be ${action}`, { item: itemId })

const checkAmount = (amountMinor: number, decimals: number) => {
  if (amountMinor > maxAmountMinor) {
    throw invalid('data', [
      {
        field: 'quantity',
        message: `makes price × quantity larger than ${toMajor(maxAmountMinor, decimals)}`
      }
    ])
  }
}

// The unit price of an item: the one sent, or for a service item its service's price.
const priceFor = async (
  deps: Pick<Deps, 'stores'>,
  owner: { facility: string; currency: string },
  type: string,
  ref: string | undefined,
  price: number | undefined
) => {
  if (type !== serviceItemType) {
    if (price === undefined) throw invalid('data', [{ field: 'price', message: 'is required' }])
    return { price, name: undefined as string | undefined }
  }
  if (ref === undefined)
    throw invalid('data', [
      { field: 'ref', message: `is required for ${serviceItemType} items (a service id)` }
    ])
  const service = await orNull(deps.stores.services._get(ref))
  if (!service || service.facility !== owner.facility)
    throw invalid('data', [{ field: 'ref', message: 'is not a service of this facility' }])
  if (service.currency !== owner.currency) {
    throw invalid('data', [
      {
        field: 'ref',
        message: `names a service priced in ${service.currency}, but the invoice is in ${owner.currency}`
      }
    ])
  }
  return { price: price ?? service.price, name: service.name as string | undefined }
}

export class BillingItemService extends ResourceService<
  Stored<Item>,
  BillingItemData,
  BillingItemPatch,
  BillingItemQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, billingItemPath, getOptions())
  }

  /**
   * Adds an item to a draft invoice: 404 for a missing invoice, 409 for a finalized one; priced (a service item
   * takes its service's price unless one is sent), amount = price × quantity; removed again if the invoice was
   * finalized or deleted meanwhile; the invoice's totals follow.
   */
  async create(data: BillingItemData & CreatedFields, params?: ItemParams): Promise<Stored<Item>> {
    return this.write('create', null, params, () => this.addItem(data))
  }

  private async addItem(data: BillingItemData & CreatedFields): Promise<Stored<Item>> {
    const { deps } = this
    const { invoices, items } = deps.stores
    const decimals = deps.settings.get('billing').moneyDecimals
    const invoice = await orNull(invoices._get(data.invoice))
    if (!invoice || invoice.deleting) {
      throw new NotFound(`No billing invoice found for id '${data.invoice}'`)
    }
    if (invoice.status !== 'draft') throw invoiceFinalized(invoice.id)

    const priced = await priceFor(deps, invoice, data.type, data.ref, data.price)
    const quantity = data.quantity ?? 1
    const amountMinor = amountMinorOf(priced.price, quantity, decimals)
    checkAmount(amountMinor, decimals)
    const name = data.name ?? priced.name
    const item = await items._create({
      facility: invoice.facility,
      invoice: invoice.id,
      currency: invoice.currency,
      type: data.type,
      ...(data.ref !== undefined ? { ref: data.ref } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(data.description !== undefined ? { description: data.description } : {}),
      price: priced.price,
      quantity,
      amount: toMajor(amountMinor, decimals),
      amountMinor,
      reserved: 0,
      pending: [],
      status: 'draft',
      finalizedAt: null,
      finalizedBy: null,
      deleting: false,
      createdAt: data.createdAt,
      createdBy: data.createdBy,
      updatedAt: deps.clock.now()
    })
    faultPoint('item:inserted')

    // The invoice may have been finalized or deleted while the item was inserted: then the item goes again.
    const after = await orNull(invoices._get(invoice.id))
    if (!after || after.deleting || after.status !== 'draft') {
      const removed = await orNull(items._remove(item.id))
      if (removed) {
        await deps.announce(billingItemPath, 'removed', removed)
        // A refresh for another item may have counted this one in the meantime.
        await refreshTotalsAfterChange(deps, invoice.id)
      }
      if (!after || after.deleting) throw new NotFound(`No billing invoice found for id '${invoice.id}'`)
      throw invoiceFinalized(invoice.id)
    }
    await refreshTotalsAfterChange(deps, invoice.id)
    return item
  }

  /**
   * Changes a draft item (price × quantity may not drop below what is already paid, atomically with the payments'
   * reservations); `finalize: true` finalizes it in the same write (billing privilege, 403 otherwise).
   */
  async patch(id: NullableId, data: BillingItemPatch, params: ItemParams = {}): Promise<Stored<Item>> {
    return this.write('patch', id, params, () => this.changeItem(id, data, params))
  }

  private async changeItem(
    id: NullableId,
    data: BillingItemPatch,
    params: ItemParams
  ): Promise<Stored<Item>> {
    const { deps } = this
    const { items } = deps.stores
    const settings = deps.settings.get('billing')
    const existing: Stored<Item> = await this.loadExisting(id as Id, params)
    if (existing.status !== 'draft') throw itemFinalized(existing.id, 'changed')
    const { finalize, ...fields } = data
    // Finalizing narrows the write to the facilities where the caller may bill (403 otherwise).
    const scope = finalize
      ? finalizeScope(
          params.provider ? await accessOf({ app: this.app, params }) : null,
          params.writeScope,
          existing.facility,
          settings.privilege,
          'Finalizing an item'
        )
      : params.writeScope

    const now = deps.clock.now()
    const changes: Record<string, unknown> = { ...fields, updatedAt: now }
    const query: Record<string, unknown> = { status: 'draft', deleting: { $ne: true } }
    const repricing = ['type', 'ref', 'price', 'quantity'].some((field) => field in fields)
    let amountMinor = existing.amountMinor
    if (repricing) {
      const type = fields.type ?? existing.type
      const ref = 'ref' in fields ? fields.ref : existing.ref
      const serviceChanged = type === serviceItemType && (type !== existing.type || ref !== existing.ref)
      const priced = await priceFor(
        deps,
        existing,
        type,
        ref,
        fields.price ?? (serviceChanged ? undefined : existing.price)
      )
      const quantity = fields.quantity ?? existing.quantity
      amountMinor = amountMinorOf(priced.price, quantity, settings.moneyDecimals)
      checkAmount(amountMinor, settings.moneyDecimals)
      Object.assign(changes, {
        price: priced.price,
        amount: toMajor(amountMinor, settings.moneyDecimals),
        amountMinor
      })
      if (serviceChanged && fields.name === undefined && priced.name !== undefined) changes.name = priced.name
      // Atomic with the payments' reservations: the new amount must still cover what is paid.
      query.reserved = { $lte: amountMinor }
    }
    if (finalize)
      Object.assign(changes, { status: 'finalized', finalizedAt: now, finalizedBy: actorOf(params) })

    const updated = await orNull(items._patch(existing.id, changes, { query: within(query, scope) }))
    if (!updated) {
      const fresh = await orNull(items._get(existing.id, { query: within({}, scope) }))
      if (!fresh || fresh.deleting) throw new NotFound(`No billing item found for id '${existing.id}'`)
      if (fresh.status !== 'draft') throw itemFinalized(existing.id, 'changed')
      const paid = toMajor(fresh.reserved ?? 0, settings.moneyDecimals)
      throw new Conflict(
        `The item's amount (${toMajor(amountMinor, settings.moneyDecimals)}) cannot be less than what is already paid (${paid})`,
        {
          item: existing.id,
          amount: toMajor(amountMinor, settings.moneyDecimals),
          paid
        }
      )
    }
    if (repricing) await refreshTotalsAfterChange(deps, existing.invoice)
    return updated
  }

  /** Removes a draft item with its payments (durably: removeItemCascade); a finalized item stays (409). */
  async remove(id: NullableId, params: ItemParams = {}): Promise<Stored<Item>> {
    return this.write('remove', id, params, async () => {
      // (cast: scopeAccess loads `existing` from this service's own store)
      const existing = params.existing as Stored<Item> | undefined
      if (existing && existing.status !== 'draft') throw itemFinalized(existing.id, 'removed')
      return removeItemCascade(this.deps, existing?.id ?? (id as string), {
        draftOnly: true,
        scope: params.writeScope
      })
    })
  }
}
