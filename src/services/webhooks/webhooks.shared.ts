// Path and methods of the webhooks service, shared with the typed client. Creation is POST /webhook-events
// (as the interface says), so `create` is not exposed here.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Webhook as WebhookDoc,
  webhookInternals,
  webhookDataSchema,
  webhookPatchSchema,
  webhookQuerySchema
} from './webhooks.schema'
import type { External } from '../../schema/resolvers'

export const webhookPath = 'webhooks'
export const webhookMethods = ['find', 'get', 'patch', 'remove'] as const

/** A webhook as clients receive it: none of the fields its external resolver keeps on the server. */
export type Webhook = External<WebhookDoc, typeof webhookInternals>
export type WebhookData = Static<typeof webhookDataSchema>
export type WebhookPatch = Static<typeof webhookPatchSchema>
export type WebhookQuery = Static<typeof webhookQuerySchema>

/** What a client may call on webhooks: its methods, typed by the schemas (data in, result out). */
export type WebhookClientService = Pick<
  ClientService<Webhook, WebhookData, WebhookPatch, Paginated<Webhook>, ClientParams<WebhookQuery>>,
  (typeof webhookMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [webhookPath]: WebhookClientService
  }
}
