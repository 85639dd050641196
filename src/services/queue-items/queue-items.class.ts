// The queue-items service: create and patch call src/queues/items.ts; a move out of the waiting announces the
// new positions of the items behind (src/services/queue-items/positions.ts).
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import type { CreatedFields } from '../../hooks/set-created'
import { isQueueStaff } from '../../queues/access'
import { createQueueItem, moveQueueItem } from '../../queues/items'
import { ResourceService } from '../resource'
import type { QueueItem, QueueItemStatus } from './queue-items.schema'
import {
  queueItemPath,
  type QueueItemData,
  type QueueItemPatch,
  type QueueItemQuery
} from './queue-items.shared'
import { announcePositionsBehind } from './positions'

export const getOptions = (): StoreOptions => ({
  name: 'queue-items',
  indexes: [
    // One item per appointment (items without one hold `walk-in:<uuid>`).
    { fields: { appointmentKey: 1 }, unique: true },
    // The waiting items of a queue in ticket order (positions, call next), and staff reading a queue.
    { fields: { queue: 1, status: 1, day: 1, number: 1 } },
    { fields: { queue: 1, day: 1, number: 1 } },
    { fields: { appointment: 1 } },
    { fields: { patient: 1, createdAt: 1 } },
    { fields: { facility: 1, createdAt: 1 } }
  ]
})

type QueueItemParams = StoreParams<QueueItemQuery>

export class QueueItemService extends ResourceService<
  Stored<QueueItem>,
  QueueItemData,
  QueueItemPatch,
  QueueItemQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, queueItemPath, getOptions())
  }

  async create(data: QueueItemData & CreatedFields, params?: QueueItemParams): Promise<Stored<QueueItem>> {
    return this.write('create', null, params, () => createQueueItem(this.deps, data))
  }

  /** A status move `{ status }`; leaving the waiting moves up every waiting item behind (announced). */
  async patch(
    id: NullableId,
    data: QueueItemPatch,
    params: QueueItemParams = {}
  ): Promise<Stored<QueueItem>> {
    let wasWaiting = false
    const moved = await this.write('patch', id, params, async () => {
      const existing = await this.loadExisting(id as Id, params)
      wasWaiting = existing.status === 'waiting'
      const actor = { by: params.account?.id ?? null, staff: isQueueStaff(params.access, existing.facility) }
      return moveQueueItem(this.deps, existing, data.status as QueueItemStatus, actor, params.writeScope)
    })
    if (wasWaiting && moved.status !== 'waiting') await announcePositionsBehind(this.app, this.deps, moved)
    return moved
  }
}
