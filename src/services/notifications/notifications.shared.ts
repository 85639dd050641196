// Path and methods of the notifications log, shared with the typed client: read-only (the server writes it).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { Static } from '@feathersjs/typebox'
import type { ClientParams } from '../client-params'
import type { External } from '../../schema/resolvers'
import type {
  Notification as NotificationDoc,
  notificationInternals,
  notificationQuerySchema
} from './notifications.schema'

export const notificationPath = 'notifications'
export const notificationMethods = ['find', 'get'] as const

/** A notification as clients receive it: who was told what (event, channel, masked address) and how it went. */
export type Notification = External<NotificationDoc, typeof notificationInternals>
export type NotificationQuery = Static<typeof notificationQuerySchema>

export type NotificationClientService = Pick<
  ClientService<Notification, never, never, Paginated<Notification>, ClientParams<NotificationQuery>>,
  (typeof notificationMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [notificationPath]: NotificationClientService
  }
}
