// Path and methods of the queue-items service, shared with the typed client (items are cancelled, never removed).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  QueueItem as QueueItemDoc,
  queueItemInternals,
  queueItemDataSchema,
  queueItemPatchSchema,
  queueItemQuerySchema
} from './queue-items.schema'
import type { External } from '../../schema/resolvers'

export const queueItemPath = 'queue-items'
export const queueItemMethods = ['find', 'get', 'create', 'patch'] as const

/** A queue item as clients receive it (`position` set while it is waiting). */
export type QueueItem = External<QueueItemDoc, typeof queueItemInternals>
export type QueueItemData = Static<typeof queueItemDataSchema>
export type QueueItemPatch = Static<typeof queueItemPatchSchema>
export type QueueItemQuery = Static<typeof queueItemQuerySchema>

/** What a client may call on queue items: its methods, typed by the schemas (data in, result out). */
export type QueueItemClientService = Pick<
  ClientService<QueueItem, QueueItemData, QueueItemPatch, Paginated<QueueItem>, ClientParams<QueueItemQuery>>,
  (typeof queueItemMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [queueItemPath]: QueueItemClientService
  }
}
