// Path and methods of the queues service, shared with the typed client (queues are retired with
// `active: false`, never removed).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Queue as QueueDoc,
  queueInternals,
  queueDataSchema,
  queuePatchSchema,
  queueQuerySchema
} from './queues.schema'
import type { External } from '../../schema/resolvers'
import type { QueueItem } from '../queue-items/queue-items.shared'

export const queuePath = 'queues'
export const queueMethods = ['find', 'get', 'create', 'patch'] as const

/** A queue as clients receive it. */
export type Queue = External<QueueDoc, typeof queueInternals>
export type QueueData = Static<typeof queueDataSchema>
export type QueuePatch = Static<typeof queuePatchSchema>
/** `PATCH /queues/:id { $callNext: true }`: calls the lowest waiting number, answers that queue item. */
export interface CallNext {
  $callNext: true
}
export type QueueQuery = Static<typeof queueQuerySchema>

/** What a client may call on queues: its methods, typed by the schemas (data in, result out); a `$callNext`
 *  patch answers the queue item it called. */
export type QueueClientService = Pick<
  ClientService<Queue, QueueData, QueuePatch, Paginated<Queue>, ClientParams<QueueQuery>>,
  'find' | 'get' | 'create'
> & {
  patch(id: string, data: CallNext, params?: ClientParams<QueueQuery>): Promise<QueueItem>
  patch(id: string, data: QueuePatch, params?: ClientParams<QueueQuery>): Promise<Queue>
}

declare module '../../client' {
  interface ServiceTypes {
    [queuePath]: QueueClientService
  }
}
