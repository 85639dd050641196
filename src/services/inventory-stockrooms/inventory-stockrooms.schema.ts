// stockroomSchema → Stockroom → stockroomDataSchema → stockroomPatchSchema → stockroomQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'

const stockroomFields = {
  name: Text(200, { minLength: 1 }),
  description: Type.Optional(Text(5000))
}

export const stockroomSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    ...stockroomFields,
    stocked: Type.Boolean(),
    updatedAt: Timestamp()
  },
  { additionalProperties: false }
)
export type Stockroom = Static<typeof stockroomSchema>

export const stockroomDataSchema = Type.Object(
  { facility: IdString(), ...stockroomFields },
  { additionalProperties: false }
)

export const stockroomPatchSchema = Type.Partial(Type.Object(stockroomFields), {
  additionalProperties: false
})

export const stockroomQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    name: Type.String(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)
