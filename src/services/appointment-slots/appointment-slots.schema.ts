// slotSchema → Slot → slotQuerySchema (find only: slots are computed, never stored)
import { Type, type Static } from '@feathersjs/typebox'
import { IdString, Timestamp } from '../../schema/common'

export const slotSchema = Type.Object(
  { provider: IdString(), schedule: IdString(), start: Timestamp(), end: Timestamp() },
  { additionalProperties: false }
)
export type Slot = Static<typeof slotSchema>

/** The longest range one search covers: 31 days. */
export const MAX_SLOT_RANGE_MS = 31 * 86_400_000

export const slotQuerySchema = Type.Object(
  {
    facility: IdString(),
    provider: Type.Optional(IdString()),
    from: Timestamp(),
    to: Timestamp(),
    $limit: Type.Optional(Type.Integer({ minimum: 0 })),
    $skip: Type.Optional(Type.Integer({ minimum: 0 }))
  },
  { additionalProperties: false }
)
export type SlotQuery = Static<typeof slotQuerySchema>
