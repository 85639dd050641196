// Path and methods of the organization-members service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Member,
  memberDataSchema,
  memberPatchSchema,
  memberQuerySchema
} from './organization-members.schema'

export const organizationMemberPath = 'organization-members'
export const organizationMemberMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

export type { Member }
export type OrganizationMemberData = Static<typeof memberDataSchema>
export type OrganizationMemberPatch = Static<typeof memberPatchSchema>
export type OrganizationMemberQuery = Static<typeof memberQuerySchema>

/** What a client may call on organization-members: its methods, typed by the schemas (data in, result out). */
export type OrganizationMemberClientService = Pick<
  ClientService<
    Member,
    OrganizationMemberData,
    OrganizationMemberPatch,
    Paginated<Member>,
    ClientParams<OrganizationMemberQuery>
  >,
  (typeof organizationMemberMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [organizationMemberPath]: OrganizationMemberClientService
  }
}
