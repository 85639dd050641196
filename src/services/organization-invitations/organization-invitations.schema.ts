// invitationSchema → Invitation → invitationDataSchema → invitationAcceptSchema → invitationQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'

const grants = {
  roles: Type.Array(Text(100, { minLength: 1 }), { maxItems: 100 }),
  privileges: Type.Array(Text(100, { minLength: 1 }), { maxItems: 100 })
}

export const invitationStatuses = ['pending', 'accepting', 'accepted'] as const

export const invitationSchema = Type.Object(
  {
    ...serverFields,
    organization: IdString(),
    /** The invitee's address, lower-cased: the code is mailed there, and only an account with it may accept. */
    email: Type.String({ format: 'email', maxLength: 254 }),
    roles: grants.roles,
    privileges: grants.privileges,
    status: Type.Union(invitationStatuses.map((status) => Type.Literal(status))),
    expiresAt: Timestamp(),
    acceptedAt: Type.Optional(Timestamp()),
    acceptedBy: Type.Optional(IdString()),
    /** SHA-256 of the mailed code (100 random bits): kept on the server, never sent to a client. */
    codeHash: Type.String()
  },
  { additionalProperties: false }
)
export type Invitation = Static<typeof invitationSchema>

/** Fields the external view leaves out. */
export const invitationInternals = ['codeHash'] as const
export const invitationExternalResolver = omittingResolver<Invitation>(invitationInternals)

const withDefault = <T extends object>(schema: T, value: unknown): T => ({ ...schema, default: value })

export const invitationDataSchema = Type.Object(
  {
    organization: IdString(),
    email: Type.String({ format: 'email', maxLength: 254 }),
    roles: Type.Optional(withDefault(grants.roles, [])),
    privileges: Type.Optional(withDefault(grants.privileges, []))
  },
  { additionalProperties: false }
)

/** The body of `accept`: the code from the message. */
export const invitationAcceptSchema = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false }
)

export const invitationQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    organization: IdString(),
    email: Type.String(),
    status: Type.String(),
    expiresAt: Type.Number(),
    createdAt: Type.Number()
  })
)
