// memberSchema → Member → memberDataSchema → memberPatchSchema → memberQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, serverFields } from '../../schema/common'

// Patch schemas carry no defaults (a default would overwrite the stored value); data schemas do.
const grants = {
  roles: Type.Array(Text(100, { minLength: 1 }), { maxItems: 100 }),
  privileges: Type.Array(Text(100, { minLength: 1 }), { maxItems: 100 }),
  superadmin: Type.Boolean()
}
const withDefault = <T extends object>(schema: T, value: unknown): T => ({ ...schema, default: value })

export const memberSchema = Type.Object(
  {
    ...serverFields,
    organization: IdString(),
    uid: IdString(),
    ...grants,
    // Never stored: on answers, the member's display name (first and last name; src/hooks/party-names.ts).
    name: Type.Optional(Type.Union([Type.String(), Type.Null()]))
  },
  { additionalProperties: false }
)
export type Member = Static<typeof memberSchema>

export const memberDataSchema = Type.Object(
  {
    organization: IdString(),
    uid: IdString(),
    roles: Type.Optional(withDefault(grants.roles, [])),
    privileges: Type.Optional(withDefault(grants.privileges, [])),
    superadmin: Type.Optional(withDefault(grants.superadmin, false))
  },
  { additionalProperties: false }
)

export const memberPatchSchema = Type.Object(
  {
    roles: Type.Optional(grants.roles),
    privileges: Type.Optional(grants.privileges),
    superadmin: Type.Optional(grants.superadmin)
  },
  { additionalProperties: false }
)

export const memberQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    organization: IdString(),
    uid: IdString(),
    roles: Type.String(),
    privileges: Type.String(),
    superadmin: Type.Boolean(),
    createdAt: Type.Number()
  })
)
