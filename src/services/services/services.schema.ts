// serviceSchema → Service → serviceDataSchema → servicePatchSchema → serviceQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, serverFields, QueryNullable } from '../../schema/common'
import { Currency, ListValue, Money } from '../../schema/billing'

const serviceFields = {
  name: Text(200, { minLength: 1 }),
  // One of config `billing.serviceTypes`.
  type: ListValue(),
  price: Money(),
  currency: Type.Optional(Currency()),
  code: Type.Optional(Text(100)),
  description: Type.Optional(Text(5000)),
  active: Type.Optional(Type.Boolean())
}

export const serviceSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    ...serviceFields,
    currency: Currency(),
    active: Type.Boolean(),
    updatedAt: Type.Number()
  },
  { additionalProperties: false }
)
export type Service = Static<typeof serviceSchema>

export const serviceDataSchema = Type.Object(
  { facility: IdString(), ...serviceFields },
  { additionalProperties: false }
)

export const servicePatchSchema = Type.Partial(Type.Object(serviceFields), { additionalProperties: false })

export const serviceQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    name: Type.String(),
    type: Type.String(),
    code: QueryNullable(Type.String()),
    active: Type.Boolean(),
    price: Type.Number(),
    currency: Type.String(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)
