// Path and methods of /webhook-events, shared with the typed client. POST creates a webhook or queues a
// ping (by the body's shape); GET lists and reads deliveries; PATCH { retry: true } retries a failed one.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type { Delivery, deliveryQuerySchema, pingSchema, retrySchema } from './webhook-events.schema'
import type { Webhook, webhookDataSchema } from '../webhooks/webhooks.schema'

export const webhookEventPath = 'webhook-events'
export const webhookEventMethods = ['find', 'get', 'create', 'patch'] as const

export type { Delivery }
export type WebhookEventData = Static<typeof webhookDataSchema> | Static<typeof pingSchema>
export type WebhookEventPatch = Static<typeof retrySchema>
export type WebhookEventQuery = Static<typeof deliveryQuerySchema>

/** A registration's answer: the webhook as clients see it, with its signing secret (shown this once). */
export type RegisteredWebhook = Webhook & { secret: string }

/**
 * What a client may call on webhook-events, typed by the schemas (data in, result out): a registration body
 * answers the registered webhook with its secret, a ping body the queued delivery.
 */
export type WebhookEventClientService = Pick<
  ClientService<
    Delivery,
    WebhookEventData,
    WebhookEventPatch,
    Paginated<Delivery>,
    ClientParams<WebhookEventQuery>
  >,
  Exclude<(typeof webhookEventMethods)[number], 'create'>
> & {
  create(
    data: Static<typeof webhookDataSchema>,
    params?: ClientParams<WebhookEventQuery>
  ): Promise<RegisteredWebhook>
  create(data: Static<typeof pingSchema>, params?: ClientParams<WebhookEventQuery>): Promise<Delivery>
}

declare module '../../client' {
  interface ServiceTypes {
    [webhookEventPath]: WebhookEventClientService
  }
}
