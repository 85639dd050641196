// Dispatching an order from a stockroom: its inventory-variant items leave the stock, all or nothing.
import { Conflict, GeneralError, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { within } from '../access/rules'
import { errorCode, orNull } from '../billing/store-calls'
import { invalid } from '../schema/validators'
import { applyMovement } from '../inventory/movements'
import type { Stock } from '../services/inventory-stocks/inventory-stocks.schema'
import { illegalMove, nextStatuses, statusStamp, type OrderStatus, type StoredOrder } from './status'

interface Consumed {
  item: string
  stock: string
  movement: string
  quantity: number
}

/** A movement a dispatch made (to be taken back if the dispatch does not finish). */
interface Made {
  id: string
  stock: string
  delta: number
}

const notFound = (id: string) => new NotFound(`No request order found for id '${id}'`)

/** Takes back the movements of a dispatch that did not finish (one take-back movement each). */
const undoMovements = async (
  deps: Deps,
  order: Pick<StoredOrder, 'id'>,
  movements: Made[],
  by: string | null
) => {
  for (const movement of movements) {
    await applyMovement(deps, movement.stock, {
      delta: -movement.delta,
      reason: `order ${order.id} dispatch undone`,
      by,
      order: order.id,
      undoes: movement.id,
      evenIfClosed: true
    })
  }
}

/**
 * Moves a `ready` order to `dispatched`, consuming from `stockroom` the quantity of every inventory-variant item.
 * Steps:
 *   1. the move must be allowed (409 naming the current status and the allowed ones); the stockroom must be one
 *      of the owner facility (400 naming `stockroom`);
 *   2. claim the order: one conditional update (still in its status, no dispatch under way, within the caller's
 *      write scope) records `dispatching: { stockroom, at, by }`;
 *   3. for each inventory-variant item, one atomic movement (`-quantity`, src/inventory/movements.ts) on an open
 *      stock of that variant in the stockroom holding enough, earliest expiry first (no expiry last); each
 *      movement names the order and the dispatch;
 *   4. if an item cannot be served: take back the movements already made, release the claim, and answer 409
 *      naming the item, what it needs and what the stockroom holds;
 *   5. one conditional update moves the order to `dispatched` (stamps, history, `consumed`) and releases the
 *      claim.
 * A crash between 2 and 5 leaves the claim: recovery (`recoverDispatches`) takes back the dispatch's movements
 * and releases it, so the order is `ready` again with its stock as it was.
 */
export const dispatchOrder = async (
  deps: Deps,
  existing: StoredOrder,
  stockroom: string,
  by: string | null,
  scope?: Query | null
): Promise<StoredOrder> => {
  const { orders, stocks, stockrooms } = deps.stores
  if (!(nextStatuses[existing.status as OrderStatus] ?? []).includes('dispatched'))
    throw illegalMove(existing, 'dispatched')
  const facility = existing.owner.organization
  const room = await orNull(stockrooms._get(stockroom))
  if (!room || room.facility !== facility)
    throw invalid('data', [{ field: 'stockroom', message: 'is not a stockroom of the owner facility' }])

  const at = deps.clock.now()
  const claimed = await orNull(
    orders._patch(
      existing.id,
      { $set: { dispatching: { stockroom, at, by }, updatedAt: at }, $inc: { rev: 1 } },
      { query: within({ status: existing.status, dispatching: null }, scope) }
    )
  )
  if (!claimed) {
    const fresh = await orNull(orders._get(existing.id, { query: within({}, scope) }))
    if (!fresh) throw notFound(existing.id)
    if (fresh.dispatching)
      throw new Conflict(`Order ${fresh.id} is being dispatched`, { order: fresh.id, status: fresh.status })
    throw illegalMove(fresh, 'dispatched')
  }

  const consumed: Consumed[] = []
  const made: Made[] = []
  const release = async () => {
    await undoMovements(deps, claimed, made, by)
    await orNull(
      orders._patch(
        claimed.id,
        { $set: { dispatching: null, updatedAt: deps.clock.now() }, $inc: { rev: 1 } },
        { query: { 'dispatching.at': at } }
      )
    )
  }
  const items: StoredOrder['items'] = claimed.items ?? []
  for (const [index, item] of items.entries()) {
    if (item.refType !== 'inventory-variant') continue
    const found = await stocks._find({
      query: { facility, variant: item.ref, stockroom, closed: false, quantity: { $gte: item.quantity } },
      paginate: false
    })
    // Earliest expiry first; stocks without an expiry last (both engines sort a missing field first).
    const expiry = (stock: Stored<Stock>) =>
      typeof stock.expiresAt === 'number' ? stock.expiresAt : Infinity
    const candidates = found.sort((a, b) => expiry(a) - expiry(b) || a.createdAt - b.createdAt)
    let served = false
    for (const candidate of candidates) {
      try {
        const { movement } = await applyMovement(deps, candidate.id, {
          delta: -item.quantity,
          reason: `order ${claimed.id} dispatched`,
          by,
          order: claimed.id,
          dispatch: at
        })
        // Applied but no longer recorded: not a state a dispatch can build on (the claim is released below).
        if (!movement)
          throw new GeneralError(`Movement of order ${claimed.id} on stock ${candidate.id} is gone`)
        made.push({ id: movement.id, stock: candidate.id, delta: -item.quantity })
        consumed.push({ item: item.id, stock: candidate.id, movement: movement.id, quantity: item.quantity })
        served = true
        break
      } catch (error) {
        if (errorCode(error) !== 409) {
          await release()
          throw error
        }
        // Taken meanwhile by another withdrawal: try the next stock.
      }
    }
    if (!served) {
      await release()
      const open = await stocks._find({
        query: { facility, variant: item.ref, stockroom, closed: false },
        paginate: false
      })
      const available = open.reduce((sum, stock) => sum + stock.quantity, 0)
      throw new Conflict(
        `Item ${index} (${item.ref}) needs ${item.quantity} but stockroom ${stockroom} holds ${available}${open.length > 1 ? ` in ${open.length} stocks` : ''}: nothing was dispatched`,
        {
          field: `items.${index}`,
          item: item.id,
          variant: item.ref,
          requested: item.quantity,
          available
        }
      )
    }
  }

  const done = deps.clock.now()
  const dispatched = await orNull(
    orders._patch(
      claimed.id,
      {
        $set: {
          ...statusStamp('dispatched', done, by),
          dispatching: null,
          dispatchedFrom: stockroom,
          consumed,
          updatedAt: done
        },
        $push: { statusHistory: { status: 'dispatched', at: done, by } },
        $inc: { rev: 1 }
      },
      { query: { 'dispatching.at': at, status: claimed.status } }
    )
  )
  if (!dispatched) {
    // Recovery (on another process) judged this dispatch interrupted and took it back.
    deps.logger.warn(`Order ${claimed.id}: dispatch was taken back before it finished`)
    throw new Conflict(`Order ${claimed.id} could not be dispatched: try again`, { order: claimed.id })
  }
  return dispatched
}

/** Takes back dispatches interrupted before `before` (see dispatchOrder). Returns how many it released. */
export const recoverDispatches = async (deps: Deps, before: number) => {
  const { orders, movements } = deps.stores
  let released = 0
  for (const order of await orders._find({ query: { 'dispatching.at': { $lt: before } }, paginate: false })) {
    const at = order.dispatching.at
    const made = await movements._find({
      query: { order: order.id, dispatch: at, status: 'applied' },
      paginate: false
    })
    const undone = await movements._find({
      query: { order: order.id, undoes: { $in: made.map((m) => m.id) } },
      paginate: false
    })
    const open = made.filter((m) => !undone.some((u) => u.undoes === m.id))
    await undoMovements(
      deps,
      order,
      open.map((m) => ({ id: m.id, stock: m.stock, delta: m.delta })),
      null
    )
    await orNull(
      orders._patch(
        order.id,
        { $set: { dispatching: null, updatedAt: deps.clock.now() }, $inc: { rev: 1 } },
        { query: { 'dispatching.at': at } }
      )
    )
    released++
  }
  return released
}
