// The request-order status machine and the item confirmations.
//
// | from       | to                        |
// |------------|---------------------------|
// | pending    | preparing, cancelled      |
// | preparing  | ready, cancelled          |
// | ready      | dispatched, cancelled     |
// | dispatched | completed, cancelled      |
// | completed  | (final)                   |
// | cancelled  | (final)                   |
//
// Every move stamps `<status>At`/`<status>By` and appends `{ status, at, by }` to `statusHistory`.
// Confirming items never moves the order: status moves are always explicit. Moving to `dispatched` with a
// `stockroom` consumes the stock of the order's inventory-variant items (src/orders/dispatch.ts); while such a
// dispatch is under way no other move is made.
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { within } from '../access/rules'
import { orNull } from '../billing/store-calls'
import { invalid } from '../schema/validators'
import type { Order } from '../services/request-orders/request-orders.schema'

/** An order as stored: its concurrency counter and the marker of a dispatch under way included. */
export type StoredOrder = Stored<Order>

export const orderStatuses = [
  'pending',
  'preparing',
  'ready',
  'dispatched',
  'completed',
  'cancelled'
] as const
export type OrderStatus = (typeof orderStatuses)[number]

export const nextStatuses: Record<OrderStatus, OrderStatus[]> = {
  pending: ['preparing', 'cancelled'],
  preparing: ['ready', 'cancelled'],
  ready: ['dispatched', 'cancelled'],
  dispatched: ['completed', 'cancelled'],
  completed: [],
  cancelled: []
}

export const isFinal = (status: string) =>
  (nextStatuses as Record<string, OrderStatus[]>)[status]?.length === 0

const notFound = (id: string) => new NotFound(`No request order found for id '${id}'`)

export const illegalMove = (order: Pick<Order, 'id' | 'status'>, to: string) => {
  const allowed = nextStatuses[order.status as OrderStatus] ?? []
  return new Conflict(
    `Order ${order.id} is ${order.status}: it cannot move to ${to}; ${allowed.length ? `allowed next: ${allowed.join(', ')}` : 'it is final'}`,
    { order: order.id, status: order.status, requested: to, allowed }
  )
}

/** The fields a move to `status` stamps. */
export const statusStamp = (status: string, at: number, by: string | null) => ({
  status,
  [`${status}At`]: at,
  [`${status}By`]: by
})

/**
 * Moves an order to `status`. Steps: 1. an unknown status is a 400 naming `changeStatus`; 2. a move the machine
 * does not allow from the current status is a 409 naming it and the allowed next ones; 3. one conditional
 * update (still in the status it was read in, within the caller's write scope) sets the status and its stamps
 * and appends to `statusHistory`; 4. if another move won meanwhile, the order is read again and step 2 answers.
 */
export const changeOrderStatus = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  existing: StoredOrder,
  status: unknown,
  by: string | null,
  scope?: Query | null
): Promise<StoredOrder> => {
  const { orders } = deps.stores
  if (typeof status !== 'string' || !(orderStatuses as readonly string[]).includes(status)) {
    throw invalid('data', [{ field: 'changeStatus', message: `must be one of: ${orderStatuses.join(', ')}` }])
  }
  let current: StoredOrder | null = existing
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!(nextStatuses[current.status as OrderStatus] ?? []).includes(status as OrderStatus))
      throw illegalMove(current, status)
    const at = deps.clock.now()
    const moved = await orNull(
      orders._patch(
        current.id,
        {
          $set: { ...statusStamp(status, at, by), updatedAt: at },
          $push: { statusHistory: { status, at, by } },
          $inc: { rev: 1 }
        },
        { query: within({ status: current.status, dispatching: null }, scope) }
      )
    )
    if (moved) return moved
    current = await orNull(orders._get(current.id, { query: within({}, scope) }))
    if (!current) throw notFound(existing.id)
    if (current.dispatching)
      throw new Conflict(`Order ${current.id} is being dispatched`, {
        order: current.id,
        status: current.status
      })
  }
  throw illegalMove(current, status)
}

/**
 * Marks one item of an order confirmed (`confirmedAt`/`confirmedBy`). Steps: 1. an item id the order does not
 * have is a 400 naming `confirmItem`; 2. an order in a final status is a 409; 3. an item already confirmed
 * keeps its first confirmation; 4. the items are written back only if the order did not change meanwhile
 * (its `rev`), else read again and retried.
 */
export const confirmOrderItem = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  existing: StoredOrder,
  itemId: unknown,
  by: string | null,
  scope?: Query | null
): Promise<StoredOrder> => {
  const { orders } = deps.stores
  let current: StoredOrder | null = existing
  for (let attempt = 0; attempt < 10; attempt++) {
    const items: Order['items'] = current.items ?? []
    const index = items.findIndex((item) => item.id === itemId)
    if (typeof itemId !== 'string' || index === -1)
      throw invalid('data', [{ field: 'confirmItem', message: `is not an item id of order ${current.id}` }])
    if (isFinal(current.status)) {
      throw new Conflict(`Order ${current.id} is ${current.status}: its items can no longer be confirmed`, {
        order: current.id,
        status: current.status
      })
    }
    if (items[index].confirmedAt) return current
    const at = deps.clock.now()
    const changed = items.map((item, i) =>
      i === index ? { ...item, confirmedAt: at, confirmedBy: by } : item
    )
    const written = await orNull(
      orders._patch(
        current.id,
        { $set: { items: changed, updatedAt: at }, $inc: { rev: 1 } },
        { query: within({ rev: current.rev, status: { $nin: ['completed', 'cancelled'] } }, scope) }
      )
    )
    if (written) return written
    current = await orNull(orders._get(current.id, { query: within({}, scope) }))
    if (!current) throw notFound(existing.id)
  }
  throw new Conflict(`Order ${existing.id} is changing too often: try again`, { order: existing.id })
}
