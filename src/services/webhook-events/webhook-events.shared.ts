// Path and methods of /webhook-events, shared with the typed client. POST creates a webhook or queues a
// ping (by the body's shape); GET lists and reads deliveries; PATCH { retry: true } retries a failed one.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type { Delivery, deliveryQuerySchema, pingSchema, retrySchema } from './webhook-events.schema'
import type { webhookDataSchema } from '../webhooks/webhooks.schema'

export const webhookEventPath = 'webhook-events'
export const webhookEventMethods = ['find', 'get', 'create', 'patch'] as const

export type { Delivery }
export type WebhookEventData = Static<typeof webhookDataSchema> | Static<typeof pingSchema>
export type WebhookEventPatch = Static<typeof retrySchema>
export type WebhookEventQuery = Static<typeof deliveryQuerySchema>

/** What a client may call on webhook-events: its methods, typed by the schemas (data in, result out). */
export type WebhookEventClientService = Pick<ClientService<Delivery, WebhookEventData, WebhookEventPatch, Paginated<Delivery>, ClientParams<WebhookEventQuery>>, (typeof webhookEventMethods)[number]>

declare module '../../client' {
  interface ServiceTypes {
    [webhookEventPath]: WebhookEventClientService
  }
}
