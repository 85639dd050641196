// queueItemSchema → QueueItem → queueItemDataSchema → queueItemPatchSchema → queueItemQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Timestamp, serverFields } from '../../schema/common'

export const queueItemStatuses = ['waiting', 'called', 'serving', 'done', 'skipped', 'cancelled'] as const
export type QueueItemStatus = (typeof queueItemStatuses)[number]

const Stamp = () => Type.Optional(Type.Union([Timestamp(), Type.Null()]))
const Actor = () => Type.Optional(Type.Union([IdString(), Type.Null()]))

export const queueItemSchema = Type.Object(
  {
    ...serverFields,
    queue: IdString(),
    // Copied from the queue: whose staff manage the item.
    facility: IdString(),
    patient: IdString(),
    appointment: Type.Optional(IdString()),
    // The ticket: `number` of the facility's local day `day` ("YYYY-MM-DD"), 1, 2, 3 … restarting each day.
    day: Type.String(),
    number: Type.Integer({ minimum: 1 }),
    status: Type.String(),
    // 1-based among the queue's waiting items (by day, then number); computed at each read, never stored.
    position: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    statusHistory: Type.Array(
      Type.Object({ status: Type.String(), at: Timestamp(), by: Type.Union([IdString(), Type.Null()]) })
    ),
    waitingAt: Stamp(),
    waitingBy: Actor(),
    calledAt: Stamp(),
    calledBy: Actor(),
    servingAt: Stamp(),
    servingBy: Actor(),
    doneAt: Stamp(),
    doneBy: Actor(),
    skippedAt: Stamp(),
    skippedBy: Actor(),
    cancelledAt: Stamp(),
    cancelledBy: Actor(),
    // One item per appointment, decided by a unique index: the appointment id, or `walk-in:<uuid>` for an item
    // without one. Never sent to clients.
    appointmentKey: Type.String(),
    updatedAt: Timestamp()
  },
  { additionalProperties: false }
)
export type QueueItem = Static<typeof queueItemSchema>

export const queueItemDataSchema = Type.Object(
  {
    queue: IdString(),
    patient: IdString(),
    appointment: Type.Optional(IdString())
  },
  { additionalProperties: false }
)

// A status move is the only change of an item.
export const queueItemPatchSchema = Type.Object(
  { status: Type.Union(queueItemStatuses.map((status) => Type.Literal(status))) },
  { additionalProperties: false }
)

export const queueItemQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    queue: IdString(),
    facility: IdString(),
    patient: IdString(),
    appointment: IdString(),
    day: Type.String(),
    number: Type.Integer(),
    status: Type.String(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

/** The appointment key never leaves the server. */
export const queueItemInternals = ['appointmentKey'] as const
