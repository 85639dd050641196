// Stock movements: the only way a stock's quantity changes. A quantity can never go below zero, even with many
// movements at once on several processes, and every applied movement is in the ledger
// (`inventory-stock-movements`), so the sum of a stock's movements is its quantity. Steps of `moveStock`:
//   1. insert the movement with status `pending` (invisible to clients);
//   2. apply it to the stock in one atomic conditional update: `$inc quantity` + `$push pending {key: movement
//      id}`, only if the stock is open and (for a withdrawal) holds at least the amount, (for a receipt) stays
//      within the largest quantity; otherwise delete the pending movement and answer 409 naming what is available;
//   3. mark the movement `applied` with the stock's quantity after it;
//   4. `$pull` the pending entry from the stock, announce the movement.
// Recovery (`recoverStockMovements`) finishes or undoes stale steps: a pending movement whose key is on its
// stock is applied, one whose key is not is deleted; a pending entry whose movement is gone is given back.
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps, Store } from '../deps'
import type { Stored } from '../store'
import { within } from '../access/rules'
import { errorCode, isPending, orNull } from '../billing/store-calls'
import { invalid } from '../schema/validators'
import { maxStockQuantity } from '../services/inventory-variants/inventory-variants.schema'
import type { Stock } from '../services/inventory-stocks/inventory-stocks.schema'
import type { StockMovement } from '../services/inventory-stock-movements/inventory-stock-movements.schema'
import { inventoryStockMovementPath } from '../services/inventory-stock-movements/inventory-stock-movements.shared'

export interface Movement {
  delta: number
  reason: string
  /** The acting account (null for internal calls). */
  by: string | null
  /** The order the movement serves, when there is one, and the dispatch (its start time) it belongs to. */
  order?: string
  dispatch?: number
  /** The movement this one takes back (an interrupted or refused order dispatch). */
  undoes?: string
  /** Taking back a movement is allowed on a closed stock (it restores what was there). */
  evenIfClosed?: boolean
}

/** A movement applied to a stock whose bookkeeping is not finished yet (step 2 until step 4). */
interface PendingEntry {
  key: string
  delta: number
  at: number
}

const pendingOf = (stock: Stored<Stock>): PendingEntry[] => stock.pending ?? []

const notFound = (stockId: string) => new NotFound(`No inventory stock found for id '${stockId}'`)

const shortConflict = (stock: Stored<Stock>, delta: number) =>
  new Conflict(`Cannot withdraw ${-delta} from stock ${stock.id}: only ${stock.quantity} available`, {
    stock: stock.id,
    variant: stock.variant,
    stockroom: stock.stockroom,
    requested: -delta,
    available: stock.quantity
  })

const overConflict = (stock: Stored<Stock>, delta: number) =>
  new Conflict(
    `Cannot receive ${delta} into stock ${stock.id}: it holds ${stock.quantity} and a stock holds at most ${maxStockQuantity}`,
    {
      stock: stock.id,
      requested: delta,
      quantity: stock.quantity,
      maximum: maxStockQuantity
    }
  )

const closedConflict = (stock: Stored<Stock>) =>
  new Conflict(`Stock ${stock.id} is closed (its variant is archived): no movements`, {
    stock: stock.id,
    closed: true
  })

/** Applies one movement to stock `stockId` atomically (see the steps above); `scope` narrows the stock write. */
export const moveStock = async (deps: Deps, stockId: string, movement: Movement, scope?: Query | null) =>
  (await applyMovement(deps, stockId, movement, scope)).stock

/** moveStock, answering both the stock after the movement and the recorded movement. */
export const applyMovement = async (
  deps: Deps,
  stockId: string,
  movement: Movement,
  scope?: Query | null
): Promise<{ stock: Stored<Stock>; movement: Stored<StockMovement> | null }> => {
  const { stocks, movements } = deps.stores
  if (
    !Number.isInteger(movement.delta) ||
    movement.delta === 0 ||
    Math.abs(movement.delta) > maxStockQuantity
  ) {
    throw invalid('data', [
      {
        field: 'adjust',
        message: `must be a non-zero integer between -${maxStockQuantity} and ${maxStockQuantity}`
      }
    ])
  }
  const stock = await orNull(stocks._get(stockId, { query: within({}, scope) }))
  if (!stock) throw notFound(stockId)
  if (stock.closed && !movement.evenIfClosed) throw closedConflict(stock)
  // Cheap early answer when the stock is plainly short (the atomic step below is what guarantees it).
  if (stock.quantity + movement.delta < 0) throw shortConflict(stock, movement.delta)
  if (stock.quantity + movement.delta > maxStockQuantity) throw overConflict(stock, movement.delta)

  const now = deps.clock.now()
  const pending = await movements._create({
    facility: stock.facility,
    stock: stock.id,
    variant: stock.variant,
    stockroom: stock.stockroom,
    ...(stock.lot !== null && stock.lot !== undefined ? { lot: stock.lot } : {}),
    delta: movement.delta,
    reason: movement.reason,
    ...(movement.order ? { order: movement.order } : {}),
    ...(movement.dispatch !== undefined ? { dispatch: movement.dispatch } : {}),
    ...(movement.undoes ? { undoes: movement.undoes } : {}),
    status: 'pending',
    createdAt: now,
    createdBy: movement.by
  })

  const guard: Query = {
    ...(movement.evenIfClosed ? {} : { closed: { $ne: true } }),
    quantity: movement.delta < 0 ? { $gte: -movement.delta } : { $lte: maxStockQuantity - movement.delta }
  }
  const applied = await orNull(
    stocks._patch(
      stock.id,
      {
        $inc: { quantity: movement.delta },
        $push: { pending: { key: pending.id, delta: movement.delta, at: now } },
        $set: { updatedAt: now }
      },
      { query: within(guard, scope) }
    )
  )
  if (!applied) {
    await orNull(movements._remove(pending.id, { query: { status: 'pending' } }))
    const fresh = await orNull(stocks._get(stock.id, { query: within({}, scope) }))
    if (!fresh) throw notFound(stock.id)
    if (fresh.closed && !movement.evenIfClosed) throw closedConflict(fresh)
    throw movement.delta < 0 ? shortConflict(fresh, movement.delta) : overConflict(fresh, movement.delta)
  }

  const recorded =
    (await orNull(
      movements._patch(
        pending.id,
        { status: 'applied', quantity: applied.quantity },
        { query: { status: 'pending' } }
      )
    )) ??
    // Recovery applied it meanwhile.
    (await orNull(movements._get(pending.id)))
  const settled = await orNull(
    stocks._patch(
      stock.id,
      { $pull: { pending: { key: pending.id } } },
      { query: { 'pending.key': pending.id } }
    )
  )
  if (recorded) await deps.announce(inventoryStockMovementPath, 'created', recorded)
  return { stock: settled ?? (await stocks._get(stock.id)), movement: recorded }
}

export interface StockInput {
  facility: string
  variant: string
  stockroom: string
  quantity?: number
  reorderLevel?: number
  expiresAt?: number
  lot?: string
  createdAt: number
  createdBy: string | null
}

/**
 * Creates the stock of a variant (by sku) in a stockroom of the same facility, one per (variant, stockroom, lot).
 * Steps: 1. find the variant (open) and the stockroom in the facility (400 naming the field otherwise);
 * 2. mark both `stocked` (a stocked variant or stockroom is archived, never removed); 3. insert the stock with
 * quantity 0 (a duplicate is a 409); 4. close it again if the variant was archived meanwhile; 5. record the
 * initial quantity as its first movement.
 */
export const createStock = async (deps: Deps, input: StockInput): Promise<Stored<Stock>> => {
  const { variants, stockrooms, stocks } = deps.stores
  const [variant] = await variants._find({
    query: { facility: input.facility, sku: input.variant, $limit: 1 },
    paginate: false
  })
  if (!variant)
    throw invalid('data', [{ field: 'variant', message: 'is not the sku of a variant of this facility' }])
  if (variant.archived) throw invalid('data', [{ field: 'variant', message: 'names an archived variant' }])
  const stockroom = await orNull(stockrooms._get(input.stockroom))
  if (!stockroom || stockroom.facility !== input.facility)
    throw invalid('data', [{ field: 'stockroom', message: 'is not a stockroom of this facility' }])

  const marked = await orNull(
    variants._patch(variant.id, { stocked: true }, { query: { archived: { $ne: true } } })
  )
  if (!marked) throw invalid('data', [{ field: 'variant', message: 'names an archived variant' }])
  await orNull(stockrooms._patch(stockroom.id, { stocked: true }))

  const lot = input.lot ?? null
  const sameStock = async () =>
    (
      await stocks._find({
        query: { facility: input.facility, variant: variant.sku, stockroom: stockroom.id, lot, $limit: 1 },
        paginate: false
      })
    )[0]
  const duplicate = (existing: Stored<Stock> | undefined) =>
    new Conflict(
      `Variant ${variant.sku} already has a stock in stockroom ${stockroom.id}${lot ? ` (lot ${lot})` : ''}: ${existing?.id}`,
      {
        stock: existing?.id,
        variant: variant.sku,
        stockroom: stockroom.id,
        lot
      }
    )
  // One stock per (variant, stockroom, lot): checked first; the unique index settles two concurrent creates.
  const existing = await sameStock()
  if (existing) throw duplicate(existing)
  let stock: Stored<Stock>
  try {
    stock = await stocks._create({
      facility: input.facility,
      variant: variant.sku,
      stockroom: stockroom.id,
      lot,
      quantity: 0,
      ...(input.reorderLevel !== undefined ? { reorderLevel: input.reorderLevel } : {}),
      ...(input.expiresAt !== undefined ? { expiresAt: input.expiresAt } : {}),
      closed: false,
      pending: [],
      createdAt: input.createdAt,
      createdBy: input.createdBy,
      updatedAt: input.createdAt
    })
  } catch (error) {
    if (errorCode(error) !== 409) throw error
    throw duplicate(await sameStock())
  }
  const still = await orNull(variants._get(variant.id))
  if (!still || still.archived) stock = (await orNull(stocks._patch(stock.id, { closed: true }))) ?? stock
  if (input.quantity && input.quantity > 0 && !stock.closed) {
    stock = await moveStock(deps, stock.id, {
      delta: input.quantity,
      reason: 'initial stock',
      by: input.createdBy
    })
  }
  return stock
}

/** The delta a PATCH asks for: `adjust: n`, or `$inc: { quantity: n }` (never both). */
export const requestedDelta = (
  fields: { adjust?: number },
  operators: Record<string, unknown> | undefined
): number | undefined => {
  const inc = operators?.$inc
  if (inc !== undefined) {
    if (fields.adjust !== undefined)
      throw invalid('data', [{ field: '$inc', message: 'cannot be sent together with adjust' }])
    if (
      !inc ||
      typeof inc !== 'object' ||
      Array.isArray(inc) ||
      Object.keys(inc).length !== 1 ||
      !('quantity' in inc)
    ) {
      throw invalid('data', [{ field: '$inc', message: 'must be { quantity: <non-zero integer> }' }])
    }
    const quantity = (inc as { quantity: unknown }).quantity
    if (
      typeof quantity !== 'number' ||
      !Number.isInteger(quantity) ||
      quantity === 0 ||
      Math.abs(quantity) > maxStockQuantity
    ) {
      throw invalid('data', [
        {
          field: '$inc.quantity',
          message: `must be a non-zero integer between -${maxStockQuantity} and ${maxStockQuantity}`
        }
      ])
    }
    return quantity
  }
  return fields.adjust
}

const all = <T>(store: Store<T>, query: Record<string, unknown>) => store._find({ query, paginate: false })

/** Finishes or undoes movements interrupted before `before` (see the header). Returns how many it touched. */
export const recoverStockMovements = async (deps: Deps, before: number) => {
  const { stocks, movements } = deps.stores
  let touched = 0
  for (const movement of await all(movements, { status: 'pending', createdAt: { $lt: before } })) {
    const stock = await orNull(stocks._get(movement.stock))
    const onStock = !!stock && pendingOf(stock).some((entry) => entry.key === movement.id)
    if (onStock) {
      const applied = await orNull(
        movements._patch(movement.id, { status: 'applied' }, { query: { status: 'pending' } })
      )
      await orNull(
        stocks._patch(
          stock.id,
          { $pull: { pending: { key: movement.id } } },
          { query: { 'pending.key': movement.id } }
        )
      )
      if (applied) await deps.announce(inventoryStockMovementPath, 'created', applied)
    } else {
      await orNull(movements._remove(movement.id, { query: { status: 'pending' } }))
    }
    touched++
  }
  for (const stock of await all(stocks, { 'pending.at': { $lt: before } })) {
    for (const entry of pendingOf(stock)) {
      if (entry.at >= before) continue
      const movement = await orNull(movements._get(entry.key))
      if (movement) {
        if (isPending(movement))
          await orNull(movements._patch(movement.id, { status: 'applied' }, { query: { status: 'pending' } }))
        await orNull(
          stocks._patch(
            stock.id,
            { $pull: { pending: { key: entry.key } } },
            { query: { 'pending.key': entry.key } }
          )
        )
      } else {
        // A movement applied to the stock but no longer recorded: given back, so the ledger adds up.
        const released = await orNull(
          stocks._patch(
            stock.id,
            { $inc: { quantity: -entry.delta }, $pull: { pending: { key: entry.key } } },
            { query: { 'pending.key': entry.key, quantity: { $gte: entry.delta } } }
          )
        )
        if (!released)
          deps.logger.warn(
            `Stock ${stock.id}: unrecorded movement ${entry.key} (${entry.delta}) could not be given back`
          )
      }
      touched++
    }
  }
  return touched
}
