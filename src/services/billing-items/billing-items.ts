// Billing items: lines of an invoice (price × quantity, quantity defaulting to 1). Items are added only to a
// draft invoice (409 otherwise), can be finalized on their own (PATCH {finalize: true}), and once finalized
// are neither changed nor removed. A `service` item's `ref` names a service of the same facility, whose
// price it takes unless a price is sent. Removing an item removes its payments (durably, cascade.ts).
// Members add and change draft items; finalizing and removing need the billing privilege or superadmin.
import { authenticate } from '@feathersjs/authentication'
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import { invoiceChildAudit } from '../../billing/audit'
import { defineAccess, within } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { invalid, validateBody, validateQueryWith } from '../../schema/validators'
import { billingScope, facilityOwned, facilityScope, isMember } from '../../billing/access'
import { removeItemCascade } from '../../billing/cascade'
import { faultPoint } from '../../billing/fault'
import { actorOf, finalizeScope, oneAtATime } from '../../billing/hooks'
import { amountMinorOf, maxAmountMinor, toMajor } from '../../billing/money'
import { emitChange, presentResults } from '../../billing/present'
import { billingSettings } from '../../billing/settings'
import { orNull, paths, stores } from '../../billing/stores'
import { refreshTotalsAfterChange } from '../../billing/totals'
import { checkBillingValues } from '../../billing/validate'
import { createItemService, type BillingItemService } from './billing-items.class'
import { itemDataSchema, itemPatchSchema, itemQuerySchema } from './billing-items.schema'
import { billingItemMethods, billingItemPath } from './billing-items.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [billingItemPath]: BillingItemService
  }
}

/** Items of this type reference a service of the catalogue (`ref` = service id). */
export const serviceItemType = 'service'

const invoiceFinalized = (invoiceId: string) =>
  new Conflict(`Billing invoice ${invoiceId} is finalized: items can only be added to a draft invoice`, { invoice: invoiceId })

const itemFinalized = (itemId: string, action: string) => new Conflict(`Billing item ${itemId} is finalized and cannot be ${action}`, { item: itemId })

const checkAmount = (amountMinor: number, decimals: number) => {
  if (amountMinor > maxAmountMinor) {
    throw invalid('data', [{ field: 'quantity', message: `makes price × quantity larger than ${toMajor(maxAmountMinor, decimals)}` }])
  }
}

// The unit price of an item: the one sent, or for a service item its service's price.
const priceFor = async (app: Application, owner: { facility: string; currency: string }, type: string, ref: string | undefined, price: number | undefined) => {
  if (type !== serviceItemType) {
    if (price === undefined) throw invalid('data', [{ field: 'price', message: 'is required' }])
    return { price, name: undefined as string | undefined }
  }
  if (ref === undefined) throw invalid('data', [{ field: 'ref', message: `is required for ${serviceItemType} items (a service id)` }])
  const service = await orNull(stores(app).services._get(ref))
  if (!service || service.facility !== owner.facility) throw invalid('data', [{ field: 'ref', message: 'is not a service of this facility' }])
  if (service.currency !== owner.currency) {
    throw invalid('data', [{ field: 'ref', message: `names a service priced in ${service.currency}, but the invoice is in ${owner.currency}` }])
  }
  return { price: price ?? service.price, name: service.name as string | undefined }
}

const createItem = async (context: HookContext, next: NextFunction) => {
  const { app } = context
  const { invoices, items } = stores(app)
  const decimals = billingSettings(app).moneyDecimals
  const data = context.data
  const invoice = await orNull(invoices._get(data.invoice))
  if (!invoice || invoice.deleting) {
    throw new NotFound(`No billing invoice found for id '${data.invoice}'`)
  }
  if (invoice.status !== 'draft') throw invoiceFinalized(invoice.id)

  const priced = await priceFor(app, invoice, data.type, data.ref, data.price)
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
    updatedAt: Date.now()
  })
  faultPoint('item:inserted')

  // The invoice may have been finalized or deleted while the item was inserted: then the item goes again.
  const after = await orNull(invoices._get(invoice.id))
  if (!after || after.deleting || after.status !== 'draft') {
    const removed = await orNull(items._remove(item.id))
    if (removed) await emitChange(app, paths.items, 'removed', removed)
    if (!after || after.deleting) throw new NotFound(`No billing invoice found for id '${invoice.id}'`)
    throw invoiceFinalized(invoice.id)
  }
  await refreshTotalsAfterChange(app, invoice.id)
  context.result = item
  await next()
}

// Changes a draft item (price × quantity may not drop below what is already paid); `finalize: true`
// finalizes it in the same write.
const patchItem = async (context: HookContext, next: NextFunction) => {
  const { app } = context
  const { items } = stores(app)
  const settings = billingSettings(app)
  const existing = context.params.existing ?? (await items._get(context.id as string))
  if (existing.status !== 'draft') throw itemFinalized(existing.id, 'changed')
  const { finalize, ...fields } = context.data
  // Finalizing narrows the write to the facilities where the caller may bill (403 otherwise).
  const scope = finalize ? await finalizeScope(context, existing, 'Finalizing an item') : context.params.writeScope

  const now = Date.now()
  const changes: Record<string, unknown> = { ...fields, updatedAt: now }
  const query: Record<string, unknown> = { status: 'draft', deleting: { $ne: true } }
  const repricing = ['type', 'ref', 'price', 'quantity'].some((field) => field in fields)
  let amountMinor = existing.amountMinor
  if (repricing) {
    const type = fields.type ?? existing.type
    const ref = 'ref' in fields ? fields.ref : existing.ref
    const serviceChanged = type === serviceItemType && (type !== existing.type || ref !== existing.ref)
    const priced = await priceFor(app, existing, type, ref, fields.price ?? (serviceChanged ? undefined : existing.price))
    const quantity = fields.quantity ?? existing.quantity
    amountMinor = amountMinorOf(priced.price, quantity, settings.moneyDecimals)
    checkAmount(amountMinor, settings.moneyDecimals)
    Object.assign(changes, { price: priced.price, amount: toMajor(amountMinor, settings.moneyDecimals), amountMinor })
    if (serviceChanged && fields.name === undefined && priced.name !== undefined) changes.name = priced.name
    // Atomic with the payments' reservations: the new amount must still cover what is paid.
    query.reserved = { $lte: amountMinor }
  }
  if (finalize) Object.assign(changes, { status: 'finalized', finalizedAt: now, finalizedBy: actorOf(context) })

  const updated = await orNull(items._patch(existing.id, changes, { query: within(query, scope) }))
  if (!updated) {
    const fresh = await orNull(items._get(existing.id, { query: within({}, scope) }))
    if (!fresh || fresh.deleting) throw new NotFound(`No billing item found for id '${existing.id}'`)
    if (fresh.status !== 'draft') throw itemFinalized(existing.id, 'changed')
    const paid = toMajor(fresh.reserved ?? 0, settings.moneyDecimals)
    throw new Conflict(`The item's amount (${toMajor(amountMinor, settings.moneyDecimals)}) cannot be less than what is already paid (${paid})`, {
      item: existing.id,
      amount: toMajor(amountMinor, settings.moneyDecimals),
      paid
    })
  }
  if (repricing) await refreshTotalsAfterChange(app, existing.invoice)
  context.result = updated
  await next()
}

const removeItem = async (context: HookContext, next: NextFunction) => {
  const existing = context.params.existing
  if (existing && existing.status !== 'draft') throw itemFinalized(existing.id, 'removed')
  context.result = await removeItemCascade(context.app, existing?.id ?? (context.id as string), { draftOnly: true, scope: context.params.writeScope })
  await next()
}

export const billingItems = (app: Application) => {
  app.use(billingItemPath, createItemService(app), { methods: [...billingItemMethods], events: [] })
  app.service(billingItemPath).populatable = true

  defineAccess(billingItemPath, {
    read: (access) => ({ ...facilityScope(access), deleting: { $ne: true } }),
    write: (access, method) => (method === 'remove' ? billingScope(access, billingSettings(app).privilege) : facilityScope(access)),
    // Members of the invoice's facility add items (an invoice of another facility is a 404).
    create: async (access, data) => {
      const invoice = await orNull(stores(app).invoices._get(data.invoice))
      if (!invoice || !isMember(access, invoice.facility)) throw new NotFound(`No billing invoice found for id '${data.invoice}'`)
    },
    ...facilityOwned,
    // A patient's billing documents are in the audit trail (README "Audit trail"): the patient is the invoice's.
    audit: invoiceChildAudit
  })

  const values = checkBillingValues({ type: 'itemTypes' }, ['price'])
  app.service(billingItemPath).hooks({
    around: {
      all: [authenticate('jwt'), presentResults(billingItemPath)],
      find: [validateQueryWith(itemQuerySchema), scopeAccess],
      get: [validateQueryWith(itemQuerySchema), scopeAccess],
      create: [validateBody({ create: itemDataSchema }), values, scopeAccess, setCreated, createItem],
      patch: [oneAtATime, validateQueryWith(itemQuerySchema), scopeAccess, validateBody({ patch: itemPatchSchema }), values, patchItem],
      remove: [oneAtATime, validateQueryWith(itemQuerySchema), scopeAccess, removeItem]
    }
  })
}
