// Durable cascades (interface 3.1, rule 5): deleting an invoice deletes its items and their payments;
// deleting an item deletes its payments. Children always go before their parent, and the parent is marked
// `deleting` first (hidden from reads, closed to new items and payments), so the mark is the durable record
// of the cascade: if the process dies between steps, startup recovery (recovery.ts) finds the marked
// documents and runs the same idempotent steps again. At no point does a child exist without its parent.
//   invoice: mark invoice → mark its items → remove payments → remove items → unlink encounter → remove invoice
//   item:    mark item → remove payments → remove item → refresh invoice totals
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Application } from '../declarations'
import { within } from '../access/rules'
import { faultPoint } from './fault'
import { emitChange } from './present'
import { multi, orNull, paths, stores } from './stores'
import { refreshTotalsAfterChange } from './totals'

export interface CascadeOptions {
  /** Set by startup recovery: the marks already exist and fault points stay quiet. */
  recovering?: boolean
  /** The caller's write scope (external calls): the first write, the mark, is made only within it, and every
   *  later step acts on the ids of the marked document and its children. */
  scope?: Query
}

/** Deletes an invoice with its items and their payments; resolves with the removed invoice. */
export const removeInvoiceCascade = async (app: Application, invoiceId: string, options: CascadeOptions = {}) => {
  const { invoices, items, payments, encounters } = stores(app)
  const now = Date.now()
  let invoice = await orNull(invoices._get(invoiceId, { query: within({}, options.scope) }))
  if (!invoice) throw new NotFound(`No billing invoice found for id '${invoiceId}'`)
  if (!invoice.deleting) {
    invoice = await orNull(invoices._patch(invoice.id, { deleting: true, deletingAt: now }, { query: within({}, options.scope) }))
    if (!invoice) throw new NotFound(`No billing invoice found for id '${invoiceId}'`)
  }
  invoiceId = invoice.id
  faultPoint('invoice-cascade:marked', options)

  await items._patch(null, { deleting: true, deletingAt: now }, multi({ invoice: invoiceId, deleting: { $ne: true } }))
  faultPoint('invoice-cascade:items-marked', options)

  const removedPayments = await payments._remove(null, multi({ invoice: invoiceId }))
  await emitChange(app, paths.payments, 'removed', removedPayments.filter((p: any) => p.status !== 'pending'))
  faultPoint('invoice-cascade:payments-removed', options)

  const removedItems = await items._remove(null, multi({ invoice: invoiceId }))
  await emitChange(app, paths.items, 'removed', removedItems)
  faultPoint('invoice-cascade:items-removed', options)

  if (invoice.encounter) {
    const unlinked = await orNull(encounters._patch(invoice.encounter, { invoice: null, updatedAt: Date.now() }, { query: { invoice: invoiceId } }))
    if (unlinked) await emitChange(app, paths.encounters, 'patched', unlinked)
  }
  const removed = await orNull(invoices._remove(invoiceId))
  return removed ?? invoice
}

/** Deletes an item with its payments; `draftOnly` refuses finalized items (a direct DELETE). */
export const removeItemCascade = async (app: Application, itemId: string, options: CascadeOptions & { draftOnly?: boolean } = {}) => {
  const { items, payments } = stores(app)
  let item = await orNull(items._get(itemId, { query: within({}, options.scope) }))
  if (!item) throw new NotFound(`No billing item found for id '${itemId}'`)
  itemId = item.id
  if (!item.deleting) {
    const query = within(options.draftOnly ? { status: 'draft' } : {}, options.scope)
    item = await orNull(items._patch(itemId, { deleting: true, deletingAt: Date.now() }, { query }))
    if (!item) {
      const fresh = await orNull(items._get(itemId, { query: within({}, options.scope) }))
      if (!fresh) throw new NotFound(`No billing item found for id '${itemId}'`)
      throw new Conflict(`Billing item ${itemId} is finalized and cannot be removed`, { item: itemId, status: fresh.status })
    }
  }
  faultPoint('item-cascade:marked', options)
  // The totals drop the item as soon as it is marked.
  await refreshTotalsAfterChange(app, item.invoice)

  const removedPayments = await payments._remove(null, multi({ item: itemId }))
  await emitChange(app, paths.payments, 'removed', removedPayments.filter((p: any) => p.status !== 'pending'))
  faultPoint('item-cascade:payments-removed', options)

  const removed = (await orNull(items._remove(itemId))) ?? item
  await refreshTotalsAfterChange(app, item.invoice)
  return removed
}
