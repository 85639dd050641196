// Path and methods of the service catalogue (a facility's billable services), shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type { Service, serviceDataSchema, servicePatchSchema, serviceQuerySchema } from './services.schema'

export const servicePath = 'services'
export const serviceMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

export type { Service }
export type CatalogueServiceData = Static<typeof serviceDataSchema>
export type CatalogueServicePatch = Static<typeof servicePatchSchema>
export type CatalogueServiceQuery = Static<typeof serviceQuerySchema>

/** What a client may call on services: its methods, typed by the schemas (data in, result out). */
export type CatalogueServiceClientService = Pick<
  ClientService<
    Service,
    CatalogueServiceData,
    CatalogueServicePatch,
    Paginated<Service>,
    ClientParams<CatalogueServiceQuery>
  >,
  (typeof serviceMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [servicePath]: CatalogueServiceClientService
  }
}
