// Queue items: a patient's ticket in a queue. Created by staff (or on check-in, src/queues/check-in.ts) with the
// next ticket number of the queue for the facility's local day (src/queues/tickets.ts), `waiting`. Status moves:
//   waiting → called → serving → done
//   waiting | called → skipped | cancelled
// by the facility's staff; a patient may cancel their own item while it is waiting, nothing else. Each move stamps
// `<status>At` / `<status>By` and appends to `statusHistory`; illegal moves are 409s naming the allowed ones.
// `position` (1-based among the queue's waiting items, by day then number) is never stored: it is computed at read
// from the waiting items (`waitingOf`).
import { randomUUID } from 'node:crypto'
import { Conflict, Forbidden, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import { within } from '../access/rules'
import { orNull } from '../billing/store-calls'
import { invalid } from '../schema/validators'
import type { Stored } from '../store'
import type { Queue } from '../services/queues/queues.schema'
import type { QueueItem, QueueItemStatus } from '../services/queue-items/queue-items.schema'
import type { QueueItemData } from '../services/queue-items/queue-items.shared'
import { facilityToday, nextTicket } from './tickets'

export type StoredQueueItem = Stored<QueueItem>

export const nextItemStatuses: Record<QueueItemStatus, readonly QueueItemStatus[]> = {
  waiting: ['called', 'skipped', 'cancelled'],
  called: ['serving', 'skipped', 'cancelled'],
  serving: ['done'],
  done: [],
  skipped: [],
  cancelled: []
}

/** Who moves an item: staff of its facility (or an internal call), or its patient. */
export interface ItemActor {
  by: string | null
  staff: boolean
}

/** The fields a status move sets: the status and its `<status>At` / `<status>By` stamps. */
const statusStamp = (status: QueueItemStatus, at: number, by: string | null) => ({
  status,
  [`${status}At`]: at,
  [`${status}By`]: by
})

/** The moves `actor` may make from `status`: the machine's for staff, only `cancelled` from `waiting` for the patient. */
export const allowedMoves = (status: string, actor: ItemActor): readonly QueueItemStatus[] => {
  const moves = nextItemStatuses[status as QueueItemStatus] ?? []
  return actor.staff ? moves : status === 'waiting' ? ['cancelled'] : []
}

const illegalMove = (current: StoredQueueItem, status: string, actor: ItemActor) => {
  const allowed = allowedMoves(current.status, actor)
  return new Conflict(
    `Queue item ${current.id} is ${current.status}: it cannot move to ${status}` +
      (allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (no move is allowed)'),
    { status: current.status, allowed }
  )
}

/**
 * Issues a ticket: the next number of `queue` for the facility's local day, stored as a waiting item. An item for
 * an appointment that already has one (the unique `appointmentKey`) is a 409 naming `appointment`; the number it
 * took is then left unused.
 */
export const issueItem = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  queue: Stored<Queue>,
  target: { patient: string; appointment?: string },
  by: string | null
): Promise<StoredQueueItem> => {
  const day = await facilityToday(deps, queue.facility)
  const number = await nextTicket(deps, queue.id, day)
  const at = deps.clock.now()
  try {
    return await deps.stores.queueItems._create({
      queue: queue.id,
      facility: queue.facility,
      patient: target.patient,
      ...(target.appointment !== undefined ? { appointment: target.appointment } : {}),
      day,
      number,
      ...statusStamp('waiting', at, by),
      statusHistory: [{ status: 'waiting', at, by }],
      appointmentKey: target.appointment ?? `walk-in:${randomUUID()}`,
      createdAt: at,
      createdBy: by,
      updatedAt: at
    })
  } catch (error) {
    if (error instanceof Conflict) throw appointmentQueued(target.appointment)
    throw error
  }
}

const appointmentQueued = (appointment: string | undefined) =>
  new Conflict(`Appointment ${appointment} already has a queue item`, {
    errors: [{ field: 'appointment', message: 'already has a queue item' }]
  })

/** The queue item of an appointment, if it has one. */
export const itemOfAppointment = async (deps: Pick<Deps, 'stores'>, appointment: string) =>
  (await deps.stores.queueItems._find({ query: { appointment, $limit: 1 }, paginate: false }))[0] as
    StoredQueueItem | undefined

/**
 * Creates an item by a staff call. Steps: 1. the queue must be active (409 naming `queue`); 2. the patient must be
 * an account (400 naming `patient`); 3. an appointment must be one of the queue's facility for that patient (400
 * naming `appointment`) without an item yet (409); 4. the ticket (issueItem).
 */
export const createQueueItem = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  data: QueueItemData & { createdAt: number; createdBy: string | null }
): Promise<StoredQueueItem> => {
  const queue = await orNull(deps.stores.queues._get(data.queue))
  if (!queue) throw new NotFound(`No queue found for id '${data.queue}'`)
  if (!queue.active)
    throw new Conflict(`Queue ${queue.id} is not active`, {
      errors: [{ field: 'queue', message: 'is not active' }]
    })
  if (!(await orNull(deps.stores.accounts._get(data.patient))))
    throw invalid('data', [{ field: 'patient', message: 'is not an account' }])
  if (data.appointment !== undefined) {
    const appointment = await orNull(deps.stores.appointments._get(data.appointment))
    if (!appointment || appointment.facility !== queue.facility)
      throw invalid('data', [
        { field: 'appointment', message: "is not an appointment of the queue's facility" }
      ])
    if (appointment.patient !== data.patient)
      throw invalid('data', [{ field: 'appointment', message: 'is an appointment of another patient' }])
    if (await itemOfAppointment(deps, data.appointment)) throw appointmentQueued(data.appointment)
  }
  return issueItem(deps, queue, data, data.createdBy)
}

/**
 * Moves an item to `status`. Steps: 1. the move must be allowed from the current status for the actor (the
 * patient: only cancelling a waiting item, else 403 for another status, 409 once it is no longer waiting; staff:
 * the machine, 409 naming the allowed ones); 2. one conditional update (still in the status it was read in) sets
 * the status, its stamps and the history; 3. if another move won meanwhile, read again, step 1.
 */
export const moveQueueItem = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  existing: StoredQueueItem,
  status: QueueItemStatus,
  actor: ItemActor,
  scope?: Query | null
): Promise<StoredQueueItem> => {
  if (!actor.staff && status !== 'cancelled')
    throw new Forbidden('A patient may only cancel their own waiting queue item')
  let current: StoredQueueItem | null = existing
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!allowedMoves(current.status, actor).includes(status)) throw illegalMove(current, status, actor)
    const at = deps.clock.now()
    const moved = await orNull(
      deps.stores.queueItems._patch(
        current.id,
        {
          $set: { ...statusStamp(status, at, actor.by), updatedAt: at },
          $push: { statusHistory: { status, at, by: actor.by } }
        },
        { query: within({ status: current.status }, scope) }
      )
    )
    if (moved) return moved
    current = await orNull(deps.stores.queueItems._get(current.id, { query: within({}, scope) }))
    if (!current) throw new NotFound(`No queue item found for id '${existing.id}'`)
  }
  throw illegalMove(current, status, actor)
}

/**
 * Calls the lowest waiting number of `queue` (by day, then number). Steps: 1. the first waiting items; 2. each in
 * turn, one conditional update (still waiting) moves it to `called` — an item another caller took meanwhile no
 * longer matches, so the next is tried; 3. none waiting: 409 "no one is waiting". Two simultaneous calls thus
 * call two different items.
 */
export const callNext = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  queue: Stored<Queue>,
  by: string | null
): Promise<StoredQueueItem> => {
  for (let round = 0; round < 20; round++) {
    const candidates = await deps.stores.queueItems._find({
      query: { queue: queue.id, status: 'waiting', $sort: { day: 1, number: 1 }, $limit: 10 },
      paginate: false
    })
    if (candidates.length === 0) break
    for (const candidate of candidates) {
      const at = deps.clock.now()
      const called = await orNull(
        deps.stores.queueItems._patch(
          candidate.id,
          {
            $set: { ...statusStamp('called', at, by), updatedAt: at },
            $push: { statusHistory: { status: 'called', at, by } }
          },
          { query: { status: 'waiting' } }
        )
      )
      if (called) return called
    }
  }
  throw new Conflict(`No one is waiting in queue ${queue.id}`, { waiting: 0 })
}

/** The ordering key of a ticket (day, then number). */
const before = (a: { day: string; number: number }, b: { day: string; number: number }) =>
  a.day < b.day || (a.day === b.day && a.number < b.number)

/** The waiting items of a queue in ticket order (ids and keys only). */
export const waitingOf = async (deps: Pick<Deps, 'stores'>, queue: string) =>
  deps.stores.queueItems._find({
    query: { queue, status: 'waiting', $sort: { day: 1, number: 1 }, $select: ['id', 'day', 'number'] },
    paginate: false
  })

/** The 1-based position of `item` among `waiting` (the queue's waiting items in ticket order); undefined if absent. */
export const positionIn = (waiting: { id: string }[], item: { id: string }) => {
  const index = waiting.findIndex((entry) => entry.id === item.id)
  return index < 0 ? undefined : index + 1
}

/** The waiting items behind `item` in its queue: whose position changes when `item` leaves the waiting. */
export const waitingBehind = async (deps: Pick<Deps, 'stores'>, item: StoredQueueItem) => {
  const behind = (await waitingOf(deps, item.queue)).filter((entry) => before(item, entry))
  if (behind.length === 0) return []
  return deps.stores.queueItems._find({
    query: { id: { $in: behind.map((entry) => entry.id) }, status: 'waiting' },
    paginate: false
  })
}
