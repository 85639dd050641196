// Creating a request order: who it is for, and items filled from what they reference.
import type { Deps } from '../deps'
import { orNull, multi } from '../billing/store-calls'
import { isWholeQuantity } from '../schema/money'
import { invalid, type FieldError } from '../schema/validators'
import { newId } from '../store'
import type { RequestOrderData } from '../services/request-orders/request-orders.shared'
import { statusStamp } from './status'

/** What an item's `refType` references: a variant of the owner facility (ref = sku) or its service (ref = id). */
export const orderRefTypes = ['inventory-variant', 'service'] as const

export interface OrderItemInput {
  name?: string
  quantity?: number
  refType?: string
  ref?: string
  unit?: string
  notes?: string
}

/**
 * The stored items of a new order. Steps: 1. each item needs `name`, or `refType` + `ref` (400 naming
 * `items.<i>.<field>`); 2. the referenced variants (by sku) and services (by id) of the facility are loaded with
 * one query each; 3. a reference that does not exist in the facility, or names an archived variant, is a 400
 * naming `items.<i>.ref`, a referenced item's quantity that is not a whole number ≥ 1 a 400 naming
 * `items.<i>.quantity`; 4. a referenced item takes `name` (a client-sent one is replaced), and `unit`, `price`
 * and `currency` where the document has them; `quantity` defaults to 1; every item gets its own `id`.
 * Returns the items and the skus they reference.
 */
export const fillOrderItems = async (
  deps: Pick<Deps, 'stores'>,
  facility: string,
  items: OrderItemInput[]
) => {
  const errors: FieldError[] = []
  items.forEach((item, i) => {
    const at = `items.${i}`
    if (item.refType !== undefined && !(orderRefTypes as readonly string[]).includes(item.refType)) {
      errors.push({ field: `${at}.refType`, message: `must be one of: ${orderRefTypes.join(', ')}` })
    } else if (item.refType !== undefined && item.ref === undefined) {
      errors.push({
        field: `${at}.ref`,
        message: `is required with refType (${item.refType === 'service' ? 'a service id' : 'a variant sku'})`
      })
    } else if (item.ref !== undefined && item.refType === undefined) {
      errors.push({
        field: `${at}.refType`,
        message: `is required with ref (one of: ${orderRefTypes.join(', ')})`
      })
    } else if (item.refType === undefined && item.name === undefined) {
      errors.push({ field: `${at}.name`, message: 'is required (or refType and ref)' })
    }
  })
  if (errors.length) throw invalid('data', errors)

  const skus = [
    ...new Set(items.filter((item) => item.refType === 'inventory-variant').map((item) => item.ref as string))
  ]
  const serviceIds = [
    ...new Set(items.filter((item) => item.refType === 'service').map((item) => item.ref as string))
  ]
  const variants = skus.length
    ? await deps.stores.variants._find({ query: { facility, sku: { $in: skus } }, paginate: false })
    : []
  const services = serviceIds.length
    ? await deps.stores.services._find({ query: { facility, id: { $in: serviceIds } }, paginate: false })
    : []
  const variantBySku = new Map(variants.map((v) => [v.sku, v]))
  const serviceById = new Map(services.map((s) => [s.id, s]))

  const filled = items.map((item, i) => {
    const base = {
      id: newId(),
      quantity: item.quantity ?? 1,
      ...(item.notes !== undefined ? { notes: item.notes } : {})
    }
    if (item.refType === 'inventory-variant') {
      const variant = variantBySku.get(item.ref ?? '')
      if (!variant)
        return errors.push({
          field: `items.${i}.ref`,
          message: 'is not the sku of a variant of the owner facility'
        })
      if (variant.archived)
        return errors.push({ field: `items.${i}.ref`, message: 'names an archived variant' })
      // Stock moves in whole units.
      if (!isWholeQuantity(base.quantity))
        return errors.push({
          field: `items.${i}.quantity`,
          message: 'must be a whole number of at least 1 for inventory-variant items'
        })
      return {
        ...base,
        refType: item.refType,
        ref: variant.sku,
        name: variant.name,
        ...(variant.unit !== undefined ? { unit: variant.unit } : {}),
        ...(variant.price !== undefined ? { price: variant.price, currency: variant.currency } : {})
      }
    }
    if (item.refType === 'service') {
      const service = serviceById.get(item.ref ?? '')
      if (!service)
        return errors.push({ field: `items.${i}.ref`, message: 'is not a service of the owner facility' })
      // A catalogue service is priced per whole unit, as on payment intents.
      if (!isWholeQuantity(base.quantity))
        return errors.push({
          field: `items.${i}.quantity`,
          message: 'must be a whole number of at least 1 for service items'
        })
      return {
        ...base,
        refType: item.refType,
        ref: service.id,
        name: service.name,
        price: service.price,
        currency: service.currency
      }
    }
    return { ...base, name: item.name, ...(item.unit !== undefined ? { unit: item.unit } : {}) }
  })
  if (errors.length) throw invalid('data', errors)
  return { items: filled as Record<string, unknown>[], skus }
}

/**
 * Creates an order. Steps: 1. `requestedForType` must be one of config `orders.requestedForTypes` and, for
 * `patient` and `organization`, `requestedFor` must name an existing account or organization (400 naming the
 * field); 2. fill the items (fillOrderItems); 3. mark the referenced variants `ordered` (so they are archived,
 * never removed; only open variants, else the item is a 400); 4. insert the order as `pending`, with its stamp
 * and first `statusHistory` entry.
 */
export const createOrder = async (
  deps: Deps,
  data: RequestOrderData & { createdAt: number; createdBy: string | null }
) => {
  const { requestedForTypes } = deps.settings.get('orders')
  const facility = data.owner.organization
  if (!requestedForTypes.includes(data.requestedForType)) {
    throw invalid('data', [
      { field: 'requestedForType', message: `must be one of: ${requestedForTypes.join(', ')}` }
    ])
  }
  const target =
    data.requestedForType === 'patient'
      ? deps.stores.accounts
      : data.requestedForType === 'organization'
        ? deps.stores.organizations
        : null
  if (target && !(await orNull<unknown>(target._get(data.requestedFor)))) {
    throw invalid('data', [
      {
        field: 'requestedFor',
        message: `is not ${data.requestedForType === 'patient' ? 'an account' : 'an organization'} id`
      }
    ])
  }
  const { items, skus } = await fillOrderItems(deps, facility, data.items)
  if (skus.length) {
    const { variants } = deps.stores
    const marked = await variants._patch(
      null,
      { ordered: true },
      multi({ facility, sku: { $in: skus }, archived: { $ne: true } })
    )
    const missing = skus.filter((sku) => !marked.some((v) => v.sku === sku))
    if (missing.length) {
      throw invalid(
        'data',
        data.items.flatMap((item, i) =>
          item.refType === 'inventory-variant' && missing.includes(item.ref ?? '')
            ? [{ field: `items.${i}.ref`, message: 'names an archived variant' }]
            : []
        )
      )
    }
  }
  const at = data.createdAt
  return deps.stores.orders._create({
    owner: { organization: facility },
    requestedForType: data.requestedForType,
    requestedFor: data.requestedFor,
    items,
    ...(data.notes !== undefined ? { notes: data.notes } : {}),
    ...statusStamp('pending', at, data.createdBy),
    dispatching: null,
    statusHistory: [{ status: 'pending', at, by: data.createdBy }],
    rev: 0,
    createdAt: at,
    createdBy: data.createdBy,
    updatedAt: at
  })
}
