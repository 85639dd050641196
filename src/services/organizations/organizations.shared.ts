// Path and methods of the organizations service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Organization,
  organizationDataSchema,
  organizationPatchSchema,
  organizationQuerySchema
} from './organizations.schema'

export const organizationPath = 'organizations'
export const organizationMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

export type { Organization }
export type OrganizationData = Static<typeof organizationDataSchema>
export type OrganizationPatch = Static<typeof organizationPatchSchema>
export type OrganizationQuery = Static<typeof organizationQuerySchema>

/** What a client may call on organizations: its methods, typed by the schemas (data in, result out). */
export type OrganizationClientService = Pick<
  ClientService<
    Organization,
    OrganizationData,
    OrganizationPatch,
    Paginated<Organization>,
    ClientParams<OrganizationQuery>
  >,
  (typeof organizationMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [organizationPath]: OrganizationClientService
  }
}
