// The query of GET /bff/unified-directory: only these parameters; anything else is a 400 naming it.
import { Type, type Static } from '@feathersjs/typebox'

const Value = () => Type.String({ minLength: 1, maxLength: 200 })
/** A facet: one value, or `{ $in: [values] }`. */
const Facet = () =>
  Type.Union([
    Value(),
    Type.Object({ $in: Type.Array(Value(), { minItems: 1, maxItems: 50 }) }, { additionalProperties: false })
  ])

export const directoryQuerySchema = Type.Object(
  {
    $search: Type.Optional(Type.String({ maxLength: 500 })),
    location: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    $limit: Type.Optional(Type.Integer({ minimum: 0 })),
    $skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000000 })),
    type: Type.Optional(Facet()),
    tags: Type.Optional(Facet()),
    'ref.type': Type.Optional(Facet()),
    'ref.types': Type.Optional(Facet())
  },
  { additionalProperties: false }
)
export type DirectoryQuery = Static<typeof directoryQuerySchema>

export interface DirectoryResult {
  id: string
  type: string
  ref: { id: string; type?: string; types?: string[] }
  tags: string[]
  name: string
  description: string
  score?: number
  highlights?: { field: 'name' | 'description'; matched: string[] }[]
  distanceKm?: number
}
