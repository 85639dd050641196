// Path and methods of the organization-invitations service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Invitation as InvitationDoc,
  invitationAcceptSchema,
  invitationDataSchema,
  invitationInternals,
  invitationQuerySchema
} from './organization-invitations.schema'
import type { Member } from '../organization-members/organization-members.schema'
import type { External } from '../../schema/resolvers'

export const organizationInvitationPath = 'organization-invitations'
export const organizationInvitationMethods = ['find', 'get', 'create', 'remove', 'accept'] as const

/** An invitation as clients receive it (never its code's hash). */
export type Invitation = External<InvitationDoc, typeof invitationInternals>
export type InvitationData = Static<typeof invitationDataSchema>
export type InvitationAccept = Static<typeof invitationAcceptSchema>
export type InvitationQuery = Static<typeof invitationQuerySchema>

/** What `accept` answers: the invitation, now accepted, and the membership it created. */
export interface InvitationAccepted {
  invitation: Invitation
  member: Member
}

/** What a client may call on organization-invitations: its methods, typed by the schemas. */
export type OrganizationInvitationClientService = Pick<
  ClientService<Invitation, InvitationData, never, Paginated<Invitation>, ClientParams<InvitationQuery>>,
  'find' | 'get' | 'create' | 'remove'
> & {
  /** The invitee, signed in with the invited address, applies the mailed code: joins the organization. */
  accept(data: InvitationAccept, params?: ClientParams<Record<string, never>>): Promise<InvitationAccepted>
}

declare module '../../client' {
  interface ServiceTypes {
    [organizationInvitationPath]: OrganizationInvitationClientService
  }
}
