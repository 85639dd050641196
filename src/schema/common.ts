// Schema pieces shared by every service.
import { Type } from '@feathersjs/typebox'

/** A public id as issued by the store. */
export const IdString = (options: Record<string, unknown> = {}) => Type.String({ minLength: 1, maxLength: 64, ...options })
/** A bounded string for names and short texts. */
export const Text = (max = 1000, options: Record<string, unknown> = {}) => Type.String({ maxLength: max, ...options })
/** Timestamps are Numbers: milliseconds since the epoch. */
export const Timestamp = () => Type.Number({ minimum: 0 })

/** Server-owned fields every resource carries. */
export const serverFields = {
  id: IdString(),
  createdAt: Timestamp(),
  createdBy: Type.Union([IdString(), Type.Null()])
}
