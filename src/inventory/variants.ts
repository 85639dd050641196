// A facility's inventory variants: creation (with an optional first stock), archiving, removal, and their
// stocks on read (`$populateStocks`).
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { within } from '../access/rules'
import { errorCode, orNull, multi } from '../billing/store-calls'
import { invalid } from '../schema/validators'
import type { Stock } from '../services/inventory-stocks/inventory-stocks.schema'
import { inventoryStockPath } from '../services/inventory-stocks/inventory-stocks.shared'
import type { Variant } from '../services/inventory-variants/inventory-variants.schema'
import type { InventoryVariantData } from '../services/inventory-variants/inventory-variants.shared'
import { createStock } from './movements'

const skuConflict = (facility: string, sku: string) =>
  new Conflict(`A variant with sku '${sku}' already exists in this facility`, { field: 'sku', sku, facility })

/**
 * Creates a variant and, with `stockroom` (and optionally `initialStock`), its first stock. Steps:
 * 1. check the stockroom belongs to the facility (400 naming `stockroom`; `initialStock` needs one);
 * 2. insert the variant (a sku already used in the facility is a 409: checked first, and the unique index settles
 *    two concurrent creates);
 * 3. create the stock with the initial quantity as its first movement (createStock); if that fails the
 *    variant, never stocked, is removed again and the error is the answer.
 * Returns the variant (as stored after the stock's creation) and the new stock, when one was created.
 */
export const createVariant = async (
  deps: Deps,
  data: InventoryVariantData & { createdAt: number; createdBy: string | null }
): Promise<{ variant: Stored<Variant>; stock: Stored<Stock> | null }> => {
  const { variants, stockrooms } = deps.stores
  const { initialStock, stockroom, ...fields } = data
  if (initialStock !== undefined && stockroom === undefined)
    throw invalid('data', [{ field: 'stockroom', message: 'is required with initialStock' }])
  if (stockroom !== undefined) {
    const room = await orNull(stockrooms._get(stockroom))
    if (!room || room.facility !== fields.facility)
      throw invalid('data', [{ field: 'stockroom', message: 'is not a stockroom of this facility' }])
  }
  const taken = await variants._find({
    query: { facility: fields.facility, sku: fields.sku, $limit: 1 },
    paginate: false
  })
  if (taken.length > 0) throw skuConflict(fields.facility, fields.sku)
  let variant
  try {
    variant = await variants._create({
      ...fields,
      archived: false,
      stocked: false,
      ordered: false,
      updatedAt: fields.createdAt
    })
  } catch (error) {
    if (errorCode(error) === 409) throw skuConflict(fields.facility, fields.sku)
    throw error
  }
  if (stockroom === undefined) return { variant, stock: null }
  let stock: Stored<Stock>
  try {
    stock = await createStock(deps, {
      facility: variant.facility,
      variant: variant.sku,
      stockroom,
      quantity: initialStock ?? 0,
      ...(fields.reorderLevel !== undefined ? { reorderLevel: fields.reorderLevel } : {}),
      createdAt: fields.createdAt,
      createdBy: fields.createdBy
    })
  } catch (error) {
    await orNull(variants._remove(variant.id))
    throw error
  }
  await deps.announce(inventoryStockPath, 'created', stock)
  const stocked = (await orNull(variants._get(variant.id))) ?? variant
  return { variant: stocked, stock }
}

/**
 * Archives (`archive: true`) or restores (`archive: false`) a variant. Steps: 1. close (or reopen) every stock
 * of the variant, so no movement touches them; 2. mark the variant archived (or not) under the caller's write
 * scope. Both steps are idempotent: repeating the PATCH finishes an interrupted one.
 */
export const archiveVariant = async (
  deps: Deps,
  existing: Stored<Variant>,
  archive: boolean,
  by: string | null,
  scope?: Query | null
) => {
  const { variants, stocks } = deps.stores
  const now = deps.clock.now()
  const changed = await stocks._patch(
    null,
    { closed: archive, updatedAt: now },
    multi({ facility: existing.facility, variant: existing.sku, closed: !archive })
  )
  if (changed.length) await deps.announce(inventoryStockPath, 'patched', changed)
  const fields = archive
    ? { archived: true, archivedAt: now, archivedBy: by, updatedAt: now }
    : { archived: false, archivedAt: null, archivedBy: null, updatedAt: now }
  const updated = await orNull(variants._patch(existing.id, fields, { query: within({}, scope) }))
  if (!updated) throw new NotFound(`No inventory variant found for id '${existing.id}'`)
  return updated
}

/** Removes a variant that was never stocked nor ordered (one conditional delete); otherwise a 409. */
export const removeVariant = async (deps: Pick<Deps, 'stores'>, id: string, scope?: Query | null) => {
  const { variants } = deps.stores
  const removed = await orNull(
    variants._remove(id, { query: within({ stocked: { $ne: true }, ordered: { $ne: true } }, scope) })
  )
  if (removed) return removed
  const fresh = await orNull(variants._get(id, { query: within({}, scope) }))
  if (!fresh) throw new NotFound(`No inventory variant found for id '${id}'`)
  throw new Conflict(
    `Variant ${fresh.sku} has been ${fresh.ordered ? 'ordered' : 'stocked'}: archive it (PATCH { archive: true }) instead`,
    {
      variant: fresh.id,
      stocked: !!fresh.stocked,
      ordered: !!fresh.ordered
    }
  )
}

export interface StocksFilter {
  stockroom?: string
}

/** `$populateStocks`: `true` (or 'true'), `false` (or 'false': none), or `{ stockroom }`; anything else a 400 naming it. */
export const parsePopulateStocks = (raw: unknown): StocksFilter | null => {
  const field = '$populateStocks'
  if (raw === undefined || raw === false || raw === 'false') return null
  if (raw === true || raw === 'true') return {}
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw invalid('query', [{ field, message: 'must be true or an object such as { stockroom }' }])
  const unknown = Object.keys(raw).filter((key) => key !== 'stockroom')
  if (unknown.length)
    throw invalid(
      'query',
      unknown.map((key) => ({
        field: `${field}.${key}`,
        message: 'is not an allowed key (allowed: stockroom)'
      }))
    )
  const stockroom = (raw as Record<string, unknown>).stockroom
  if (
    stockroom !== undefined &&
    (typeof stockroom !== 'string' || stockroom.length === 0 || stockroom.length > 64)
  ) {
    throw invalid('query', [{ field: `${field}.stockroom`, message: 'must be a stockroom id' }])
  }
  return stockroom === undefined ? {} : { stockroom }
}

/** What `attachStocks` reads the stocks with: the stocks service's own `find` (its hooks run) and its client view. */
export interface StockLookup {
  find(query: Record<string, unknown>): Promise<Stored<Stock>[]>
  present(stock: Stored<Stock>): Promise<unknown>
}

/** A variant of a result page, as far as `$stocks` needs it. */
interface Stockable {
  facility: string
  sku: string
}

/**
 * Gives every variant of a page its `$stocks` (its stocks in its facility, `[]` when none; with a stockroom
 * filter only that stockroom's). Steps: 1. collect the page's (facility, sku) pairs; 2. load their stocks with
 * ONE call of the stocks service (`lookup.find`: its own hooks run, so the query is the portable `$in` subset) —
 * never one per variant; 3. group them by (facility, sku) and attach them in the stocks' client view.
 */
export const attachStocks = async <V extends Stockable>(
  variants: V[],
  filter: StocksFilter,
  lookup: StockLookup
): Promise<(V & { $stocks: unknown[] })[]> => {
  if (variants.length === 0) return []
  const facilities = [...new Set(variants.map((v) => v.facility))]
  const skus = [...new Set(variants.map((v) => v.sku))]
  const query: Record<string, unknown> = {
    facility: { $in: facilities },
    variant: { $in: skus },
    $sort: { stockroom: 1, lot: 1 }
  }
  if (filter.stockroom) query.stockroom = filter.stockroom
  const found = await lookup.find(query)
  const byKey = new Map<string, unknown[]>()
  for (const stock of found) {
    const key = `${stock.facility}\u0000${stock.variant}`
    byKey.set(key, [...(byKey.get(key) ?? []), await lookup.present(stock)])
  }
  return variants.map((variant) => ({
    ...variant,
    $stocks: byKey.get(`${variant.facility}\u0000${variant.sku}`) ?? []
  }))
}
