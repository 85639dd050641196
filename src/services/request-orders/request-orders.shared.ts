// Path and methods of the request-orders service, shared with the typed client (orders are cancelled, never removed).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Order as OrderDoc,
  orderInternals,
  orderDataSchema,
  orderPatchSchema,
  orderQuerySchema
} from './request-orders.schema'
import type { External } from '../../schema/resolvers'

export const requestOrderPath = 'request/orders'
export const requestOrderMethods = ['find', 'get', 'create', 'patch'] as const

/** A request order as clients receive it: none of the fields its external resolver keeps on the server. */
export type Order = External<OrderDoc, typeof orderInternals>
export type RequestOrderData = Static<typeof orderDataSchema>
export type RequestOrderPatch = Static<typeof orderPatchSchema>
export type RequestOrderQuery = Static<typeof orderQuerySchema>

/** What a client may call on request-orders: its methods, typed by the schemas (data in, result out). */
export type RequestOrderClientService = Pick<
  ClientService<
    Order,
    RequestOrderData,
    RequestOrderPatch,
    Paginated<Order>,
    ClientParams<RequestOrderQuery>
  >,
  (typeof requestOrderMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [requestOrderPath]: RequestOrderClientService
  }
}
