// Schema pieces shared by every service.
import { Type, type TSchema } from '@feathersjs/typebox'

/** A public id as issued by the store. */
export const IdString = (options: Record<string, unknown> = {}) =>
  Type.String({ minLength: 1, maxLength: 64, ...options })
/** A bounded string for names and short texts. */
export const Text = (max = 1000, options: Record<string, unknown> = {}) =>
  Type.String({ maxLength: max, ...options })
/** Timestamps are Numbers: milliseconds since the epoch. */
export const Timestamp = () => Type.Number({ minimum: 0 })

/** Server-owned fields every resource carries. */
export const serverFields = {
  id: IdString(),
  createdAt: Timestamp(),
  createdBy: Type.Union([IdString(), Type.Null()])
}

/**
 * A query schema's field that stored documents may hold as null or lack: `null` (in a query string, `null`) asks
 * for those, as on MongoDB (`{ f: null }` matches a null or missing field; `$ne: null` one that is present and not
 * null). The null alternative comes first, so the query validator's coercion never turns null into 0, '' or false.
 */
export const QueryNullable = <T extends TSchema>(schema: T) =>
  Type.Union([
    Type.Unsafe<null>({ queryNull: true, description: 'null: the field is null or missing' }),
    schema
  ])
