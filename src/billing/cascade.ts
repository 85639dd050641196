// Durable cascades: deleting an invoice deletes its items and their payments;
// deleting an item deletes its payments. Children always go before their parent, and the parent is marked
// `deleting` first (hidden from reads, closed to new items and payments), so the mark is the durable record
// of the cascade: if the process dies between steps, startup recovery (recovery.ts) finds the marked
// documents and runs the same idempotent steps again. At no point does a child exist without its parent.
//   invoice: mark invoice → mark its items → remove payments → remove items → unlink encounter → remove invoice
//   item:    mark item → remove payments → remove item → refresh invoice totals
//   encounter: mark encounter → the invoice cascade for its draft invoice (draft only) → remove its files
//              (src/attachments/remove.ts) → remove encounter
// (an encounter whose invoice turns out finalized meanwhile is unmarked again and the removal is a 409).
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import { within } from '../access/rules'
import { billingInvoicePath } from '../services/billing-invoices/billing-invoices.shared'
import { billingItemPath } from '../services/billing-items/billing-items.shared'
import { billingPaymentPath } from '../services/billing-payments/billing-payments.shared'
import { medicalEncounterPath } from '../services/medical-encounters/medical-encounters.shared'
import { faultPoint } from './fault'
import { errorCode, isPending, multi, orNull } from './store-calls'
import { refreshTotalsAfterChange } from './totals'
import { removeAttachmentsOf } from '../attachments/remove'

// A payment whose recording never finished (`pending`) was never announced, so its removal is not either.
const announced = (payment: { status?: string }) => !isPending(payment)

export interface CascadeOptions {
  /** Set by startup recovery: the marks already exist and fault points stay quiet. */
  recovering?: boolean
  /** The caller's write scope (external calls): the first write, the mark, is made only within it, and every
   *  later step acts on the ids of the marked document and its children. */
  scope?: Query
}

/** Deletes an invoice with its items and their payments; resolves with the removed invoice. `draftOnly`
 *  refuses (409) an invoice that is finalized when the cascade starts. */
export const removeInvoiceCascade = async (
  deps: Deps,
  invoiceId: string,
  options: CascadeOptions & { draftOnly?: boolean } = {}
) => {
  const { invoices, items, payments, encounters } = deps.stores
  const now = deps.clock.now()
  let invoice = await orNull(invoices._get(invoiceId, { query: within({}, options.scope) }))
  if (!invoice) throw new NotFound(`No billing invoice found for id '${invoiceId}'`)
  if (!invoice.deleting) {
    invoice = await orNull(
      invoices._patch(
        invoice.id,
        { deleting: true, deletingAt: now },
        { query: within(options.draftOnly ? { status: 'draft' } : {}, options.scope) }
      )
    )
    if (!invoice) {
      const fresh = await orNull(invoices._get(invoiceId, { query: within({}, options.scope) }))
      if (!fresh) throw new NotFound(`No billing invoice found for id '${invoiceId}'`)
      throw new Conflict(`Billing invoice ${invoiceId} is finalized and cannot be removed`, {
        invoice: invoiceId,
        status: fresh.status
      })
    }
  }
  invoiceId = invoice.id
  faultPoint('invoice-cascade:marked', options)

  await items._patch(
    null,
    { deleting: true, deletingAt: now },
    multi({ invoice: invoiceId, deleting: { $ne: true } })
  )
  faultPoint('invoice-cascade:items-marked', options)

  const removedPayments = await payments._remove(null, multi({ invoice: invoiceId }))
  await deps.announce(billingPaymentPath, 'removed', removedPayments.filter(announced))
  faultPoint('invoice-cascade:payments-removed', options)

  const removedItems = await items._remove(null, multi({ invoice: invoiceId }))
  await deps.announce(billingItemPath, 'removed', removedItems)
  faultPoint('invoice-cascade:items-removed', options)

  if (invoice.encounter) {
    const unlinked = await orNull(
      encounters._patch(
        invoice.encounter,
        { invoice: null, updatedAt: deps.clock.now() },
        { query: { invoice: invoiceId, deleting: { $ne: true } } }
      )
    )
    if (unlinked) await deps.announce(medicalEncounterPath, 'patched', unlinked)
  }
  const removed = await orNull(invoices._remove(invoiceId))
  return removed ?? invoice
}

/** Deletes an item with its payments; `draftOnly` refuses finalized items (a direct DELETE). */
export const removeItemCascade = async (
  deps: Deps,
  itemId: string,
  options: CascadeOptions & { draftOnly?: boolean } = {}
) => {
  const { items, payments } = deps.stores
  let item = await orNull(items._get(itemId, { query: within({}, options.scope) }))
  if (!item) throw new NotFound(`No billing item found for id '${itemId}'`)
  itemId = item.id
  if (!item.deleting) {
    const query = within(options.draftOnly ? { status: 'draft' } : {}, options.scope)
    item = await orNull(items._patch(itemId, { deleting: true, deletingAt: deps.clock.now() }, { query }))
    if (!item) {
      const fresh = await orNull(items._get(itemId, { query: within({}, options.scope) }))
      if (!fresh) throw new NotFound(`No billing item found for id '${itemId}'`)
      throw new Conflict(`Billing item ${itemId} is finalized and cannot be removed`, {
        item: itemId,
        status: fresh.status
      })
    }
  }
  faultPoint('item-cascade:marked', options)
  // The totals drop the item as soon as it is marked.
  await refreshTotalsAfterChange(deps, item.invoice)

  const removedPayments = await payments._remove(null, multi({ item: itemId }))
  await deps.announce(billingPaymentPath, 'removed', removedPayments.filter(announced))
  faultPoint('item-cascade:payments-removed', options)

  const removed = (await orNull(items._remove(itemId))) ?? item
  await refreshTotalsAfterChange(deps, item.invoice)
  return removed
}

const encounterFinalized = (id: string, why: string) =>
  new Conflict(`Medical encounter ${id} cannot be removed: ${why}`, { encounter: id })

/**
 * Removes a draft encounter with its draft invoice, the invoice's items and their payments (the invoice
 * cascade). A finalized encounter, or one whose invoice is finalized, is a 409. The encounter is marked
 * `deleting` first (hidden from reads, closed to patches and finalizing): the durable record of the cascade,
 * which startup recovery runs again.
 */
export const removeEncounterCascade = async (
  deps: Deps,
  encounterId: string,
  options: CascadeOptions = {}
) => {
  const { encounters, invoices } = deps.stores
  let encounter = await orNull(encounters._get(encounterId, { query: within({}, options.scope) }))
  if (!encounter) throw new NotFound(`No medical encounter found for id '${encounterId}'`)
  if (!encounter.deleting) {
    if (encounter.status !== 'draft') throw encounterFinalized(encounter.id, 'it is finalized')
    const invoice = encounter.invoice ? await orNull(invoices._get(encounter.invoice)) : null
    if (invoice && !invoice.deleting && invoice.status !== 'draft')
      throw encounterFinalized(encounter.id, `its invoice ${invoice.id} is finalized`)
    encounter = await orNull(
      encounters._patch(
        encounter.id,
        { deleting: true, deletingAt: deps.clock.now() },
        { query: within({ status: 'draft', deleting: { $ne: true } }, options.scope) }
      )
    )
    if (!encounter) {
      const fresh = await orNull(encounters._get(encounterId, { query: within({}, options.scope) }))
      if (!fresh || fresh.deleting) throw new NotFound(`No medical encounter found for id '${encounterId}'`)
      throw encounterFinalized(encounterId, 'it is finalized')
    }
  }
  faultPoint('encounter-cascade:marked', options)

  if (encounter.invoice) {
    try {
      const removedInvoice = await removeInvoiceCascade(deps, encounter.invoice, {
        recovering: options.recovering,
        draftOnly: true
      })
      await deps.announce(billingInvoicePath, 'removed', removedInvoice)
    } catch (error) {
      if (errorCode(error) === 409) {
        // Finalized meanwhile: the encounter stays, as it was.
        await orNull(encounters._patch(encounter.id, { deleting: false, deletingAt: null }))
        throw encounterFinalized(encounter.id, `its invoice ${encounter.invoice} is finalized`)
      }
      if (errorCode(error) !== 404) throw error
    }
  }
  faultPoint('encounter-cascade:invoice-removed', options)
  // Its files and their bytes (src/attachments/remove.ts), before the encounter itself.
  await removeAttachmentsOf(deps, { encounter: encounter.id })
  faultPoint('encounter-cascade:attachments-removed', options)
  return (await orNull(encounters._remove(encounter.id))) ?? encounter
}
