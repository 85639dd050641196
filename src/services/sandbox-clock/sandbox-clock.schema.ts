// sandboxClockSchema → SandboxClockReading → sandboxClockMoveSchema
import { Type, type Static } from '@feathersjs/typebox'
import { Timestamp } from '../../schema/common'

/** What GET answers: the time every time-driven rule reads, and how far ahead of the real time it is. */
export const sandboxClockSchema = Type.Object(
  { now: Timestamp(), offsetMs: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false }
)
export type SandboxClockReading = Static<typeof sandboxClockSchema>

/** A move: `{ advanceMs }` (forward by that much; 0 runs what is due) or `{ now }` (forward to that time). */
export const sandboxClockMoveSchema = Type.Object(
  {
    advanceMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 * 365 * 86_400_000 })),
    now: Type.Optional(Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000 }))
  },
  { additionalProperties: false }
)
export type SandboxClockMove = Static<typeof sandboxClockMoveSchema>

/** What PATCH answers: the new time and what each time-driven pass changed on it. */
export const sandboxClockMovedSchema = Type.Object(
  {
    now: Timestamp(),
    offsetMs: Type.Integer({ minimum: 0 }),
    ran: Type.Array(
      Type.Object({ job: Type.String(), changed: Type.Integer(), error: Type.Optional(Type.String()) })
    )
  },
  { additionalProperties: false }
)
export type SandboxClockMoved = Static<typeof sandboxClockMovedSchema>
