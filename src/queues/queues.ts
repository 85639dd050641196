// Queues of a facility's waiting room: `{ facility, name, active, default }`. At most one queue per facility is
// its `default` (the one check-ins go to). Making a queue the default is a check-then-write under the facility's
// lock (`deps.locks`: in process and, with REDIS_URL, across instances), and the store backs it with a unique index
// on `defaultKey` — the facility id while the queue is the default, else a key unique to the queue — so of two
// simultaneous defaults one is stored, the other gets a 409 naming `default` and the current default queue.
import { randomUUID } from 'node:crypto'
import { BadRequest, Conflict } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import { within } from '../access/rules'
import { orNull } from '../billing/store-calls'
import type { Stored } from '../store'
import { queueDefaults, type Queue } from '../services/queues/queues.schema'
import type { QueueData, QueuePatch } from '../services/queues/queues.shared'

type StoredQueue = Stored<Queue>

/** The default key of a queue: the facility's while it is the default, else one of its own. */
const defaultKeyOf = (facility: string, isDefault: boolean, own: string) =>
  isDefault ? `default:${facility}` : `free:${own}`

/** The facility's default queue (active or not), if any. */
export const defaultQueueOf = async (deps: Pick<Deps, 'stores'>, facility: string) =>
  (
    await deps.stores.queues._find({
      query: { facility, default: true, $limit: 1 },
      paginate: false
    })
  )[0] as StoredQueue | undefined

const defaultTaken = (current: StoredQueue | undefined) =>
  new Conflict(
    `The facility already has a default queue${current ? `: '${current.name}' (${current.id})` : ''}`,
    {
      errors: [{ field: 'default', message: 'the facility already has a default queue' }],
      ...(current ? { queue: current.id } : {})
    }
  )

/** A write that may take the facility's default key: a unique-index conflict is the 409 naming `default`. */
const takingDefault = async <T>(deps: Pick<Deps, 'stores'>, facility: string, write: () => Promise<T>) => {
  try {
    return await write()
  } catch (error) {
    if (error instanceof Conflict) throw defaultTaken(await defaultQueueOf(deps, facility))
    throw error
  }
}

/** Runs `task` holding the facility's default-queue lock (only one queue becomes its default at a time). */
const defaultLock = <T>(deps: Pick<Deps, 'locks'>, facility: string, task: () => Promise<T>) =>
  deps.locks.exclusive(`queue-default:${facility}`, task)

/**
 * Creates a queue. Steps: 1. defaults (active, not default); 2. a default queue while the facility has one: 409
 * (read first for the message; the unique default key decides a race); 3. stored.
 */
export const createQueue = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'locks'>,
  data: QueueData & { createdAt: number; createdBy: string | null }
): Promise<StoredQueue> => {
  const doc = { ...queueDefaults, ...data, updatedAt: deps.clock.now() }
  const create = () =>
    takingDefault(deps, doc.facility, () =>
      deps.stores.queues._create({
        ...doc,
        defaultKey: defaultKeyOf(doc.facility, doc.default, randomUUID())
      })
    )
  if (!doc.default) return create()
  return defaultLock(deps, doc.facility, async () => {
    const current = await defaultQueueOf(deps, doc.facility)
    if (current) throw defaultTaken(current)
    return create()
  })
}

/** Changes a queue's name, `active` or `default` (becoming the default while another is: 409 naming `default`). */
export const changeQueue = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'locks'>,
  existing: StoredQueue,
  patch: QueuePatch,
  scope?: Query | null
): Promise<StoredQueue> => {
  if (Object.keys(patch).length === 0) throw new BadRequest('Nothing to change')
  if (patch.default === true && !existing.default)
    return defaultLock(deps, existing.facility, async () => {
      const current = await defaultQueueOf(deps, existing.facility)
      if (current && current.id !== existing.id) throw defaultTaken(current)
      return writeQueueChange(deps, existing, patch, scope)
    })
  return writeQueueChange(deps, existing, patch, scope)
}

const writeQueueChange = (
  deps: Pick<Deps, 'stores' | 'clock'>,
  existing: StoredQueue,
  patch: QueuePatch,
  scope?: Query | null
): Promise<StoredQueue> => {
  const changes = {
    ...patch,
    ...(patch.default !== undefined
      ? { defaultKey: defaultKeyOf(existing.facility, patch.default, existing.id) }
      : {}),
    updatedAt: deps.clock.now()
  }
  return takingDefault(deps, existing.facility, () =>
    deps.stores.queues._patch(existing.id, changes, { query: within({}, scope) })
  )
}

/** The queue `id` (null when there is none). */
export const queueById = (deps: Pick<Deps, 'stores'>, id: string) => orNull(deps.stores.queues._get(id))
