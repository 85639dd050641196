// organizationSchema → Organization → organizationDataSchema → organizationPatchSchema → organizationQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, serverFields, QueryNullable } from '../../schema/common'

export const organizationFields = {
  name: Text(200, { minLength: 1 }),
  // A facility is an organization whose type is `facility`; `types` lists its kinds (e.g. clinic, laboratory).
  type: Text(100, { minLength: 1 }),
  types: Type.Optional(Type.Array(Text(100), { maxItems: 50 })),
  description: Type.Optional(Text(5000)),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  phone: Type.Optional(Text(40)),
  address: Type.Optional(Text(500)),
  // The facility's IANA time zone ("America/New_York"): its schedules' default, and the local day of its queue
  // tickets. Absent: "UTC".
  timeZone: Type.Optional(Text(100, { minLength: 1, format: 'time-zone' })),
  // The unified directory (GET /bff/unified-directory): an organization is listed only once `directory.listed` is
  // true; its entry shows name, description, type(s), tags and coordinates — nothing else of the organization.
  directory: Type.Optional(Type.Object({ listed: Type.Boolean() }, { additionalProperties: false })),
  coordinates: Type.Optional(
    Type.Union([
      Type.Object(
        {
          lat: Type.Number({ minimum: -90, maximum: 90 }),
          lng: Type.Number({ minimum: -180, maximum: 180 })
        },
        { additionalProperties: false }
      ),
      Type.Null()
    ])
  ),
  // Own tags; `sto:<service type>` tags come from the service catalogue and cannot be set by hand.
  tags: Type.Optional(Type.Array(Text(100, { minLength: 1, pattern: '^(?!sto:)' }), { maxItems: 50 }))
}

export const organizationSchema = Type.Object(
  {
    ...serverFields,
    ...organizationFields,
    subscription: Type.Optional(
      IdString({ description: "Server-owned: the facility's current subscription id" })
    )
  },
  { additionalProperties: false }
)
export type Organization = Static<typeof organizationSchema>

// The sign-up body of POST /accounts may carry the same object, with a `subscription` to start (accounts.schema.ts).
export const organizationDataSchema = Type.Object(organizationFields, { additionalProperties: false })

export const organizationPatchSchema = Type.Partial(Type.Object(organizationFields), {
  additionalProperties: false
})

export const organizationQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    name: Type.String(),
    type: Type.String(),
    types: QueryNullable(Type.String()),
    createdAt: Type.Number(),
    createdBy: QueryNullable(Type.String())
  })
)
