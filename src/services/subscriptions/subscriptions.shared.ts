// Path and methods of the subscriptions service, shared with the typed client (a subscription is never removed:
// it ends as canceled or incomplete_expired).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { Static } from '@feathersjs/typebox'
import type { ClientParams } from '../client-params'
import type {
  Subscription as SubscriptionDoc,
  subscriptionInternals,
  subscriptionDataSchema,
  subscriptionPatchSchema,
  subscriptionQuerySchema
} from './subscriptions.schema'
import type { External } from '../../schema/resolvers'

export const subscriptionPath = 'subscriptions'
export const subscriptionMethods = ['find', 'get', 'create', 'patch'] as const

/** A subscription as clients receive it: none of the fields its external resolver keeps on the server. */
export type Subscription = External<SubscriptionDoc, typeof subscriptionInternals>
export type SubscriptionData = Static<typeof subscriptionDataSchema>
export type SubscriptionPatch = Static<typeof subscriptionPatchSchema>
export type SubscriptionQuery = Static<typeof subscriptionQuerySchema>

/** What a client may call on subscriptions: its methods, typed by the schemas (data in, result out). */
export type SubscriptionClientService = Pick<
  ClientService<
    Subscription,
    SubscriptionData,
    SubscriptionPatch,
    Paginated<Subscription>,
    ClientParams<SubscriptionQuery>
  >,
  (typeof subscriptionMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [subscriptionPath]: SubscriptionClientService
  }
}
