// The queues service: create and patch call src/queues/queues.ts; `PATCH { $callNext: true }` calls the lowest
// waiting number (src/queues/items.ts) and answers that queue item.
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import type { CreatedFields } from '../../hooks/set-created'
import { invalid } from '../../schema/validators'
import { changeQueue, createQueue } from '../../queues/queues'
import { callNext } from '../../queues/items'
import { ResourceService } from '../resource'
import { announceItemLeftWaiting } from '../queue-items/positions'
import type { Queue } from './queues.schema'
import { queuePath, type QueueData, type QueuePatch, type QueueQuery } from './queues.shared'

export const getOptions = (): StoreOptions => ({
  name: 'queues',
  indexes: [
    // One default queue per facility: `default:<facility>` while default, else `free:<id>`.
    { fields: { defaultKey: 1 }, unique: true },
    { fields: { facility: 1, default: 1, active: 1 } },
    { fields: { default: 1, active: 1 } }
  ]
})

type QueueParams = StoreParams<QueueQuery>

export class QueueService extends ResourceService<Stored<Queue>, QueueData, QueuePatch, QueueQuery> {
  // `$callNext` in a PATCH body (src/hooks/reject-unsafe-keys.ts hands it over in params.operators).
  bodyOperators = ['$callNext']

  constructor(app: Application, deps: Deps) {
    super(app, deps, queuePath, getOptions())
  }

  async create(data: QueueData & CreatedFields, params?: QueueParams): Promise<Stored<Queue>> {
    return this.write('create', null, params, () => createQueue(this.deps, data))
  }

  /**
   * A change of the queue, or `{ $callNext: true }` alone: the called item is announced on /queue-items (its
   * `patched` event to the patient and the staff, the positions behind it), this call emits no queue event, and
   * answers the item as /queue-items shows it.
   */
  async patch(id: NullableId, data: QueuePatch, params: QueueParams = {}): Promise<Stored<Queue>> {
    const operators = params.operators ?? {}
    if (!('$callNext' in operators))
      return this.write('patch', id, params, async () =>
        changeQueue(this.deps, await this.loadExisting(id as Id, params), data, params.writeScope)
      )
    if (operators.$callNext !== true) throw invalid('data', [{ field: '$callNext', message: 'must be true' }])
    const extra = Object.keys(data ?? {})
    if (extra.length) throw invalid('data', [{ field: extra[0], message: 'goes not with $callNext' }])
    const queue = await this.loadExisting(id as Id, params)
    const item = await callNext(this.deps, queue, params.account?.id ?? null)
    // (cast: a $callNext patch answers the queue item it called, as the typed client declares)
    return (await announceItemLeftWaiting(this.app, this.deps, item)) as unknown as Stored<Queue>
  }
}
