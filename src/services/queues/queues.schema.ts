// queueSchema → Queue → queueDataSchema → queuePatchSchema → queueQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'

export const queueDefaults = { active: true, default: false }

export const queueSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    name: Text(100),
    active: Type.Boolean(),
    default: Type.Boolean(),
    // The ticket counter: the facility's local day ("YYYY-MM-DD") of the last ticket issued and its number, moved
    // by single-document conditional updates only (src/queues/tickets.ts).
    ticketDay: Type.Optional(Type.String()),
    lastTicket: Type.Optional(Type.Integer()),
    // One default queue per facility, decided by a unique index: the facility id while default, else a key unique
    // to the queue (`free:<id>`). Never sent to clients.
    defaultKey: Type.String(),
    updatedAt: Timestamp()
  },
  { additionalProperties: false }
)
export type Queue = Static<typeof queueSchema>

export const queueDataSchema = Type.Object(
  {
    facility: IdString(),
    name: Text(100, { minLength: 1 }),
    active: Type.Optional(Type.Boolean()),
    default: Type.Optional(Type.Boolean())
  },
  { additionalProperties: false }
)

// A queue's facility never changes; a queue is retired with `active: false`, never removed.
export const queuePatchSchema = Type.Object(
  {
    name: Type.Optional(Text(100, { minLength: 1 })),
    active: Type.Optional(Type.Boolean()),
    default: Type.Optional(Type.Boolean())
  },
  { additionalProperties: false }
)

/** The body operator of PATCH /queues/:id that calls the lowest waiting number. */
export const callNextOperatorSchema = Type.Literal(true)

export const queueQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    name: Type.String(),
    active: Type.Boolean(),
    default: Type.Boolean(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

/** The default key never leaves the server. */
export const queueInternals = ['defaultKey'] as const
export const queueExternalResolver = omittingResolver<Queue>(queueInternals)
