// orderSchema → Order → orderDataSchema → orderPatchSchema → orderQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { Currency, Money } from '../../schema/billing'
import { omittingResolver } from '../../schema/resolvers'

const Quantity = () => Type.Number({ exclusiveMinimum: 0, maximum: 1e6 })

/** An item as sent: `name` (quantity optional, default 1) or `refType` + `ref` (name filled by the server). */
export const orderItemDataSchema = Type.Object(
  {
    name: Type.Optional(Text(500, { minLength: 1 })),
    quantity: Type.Optional(Quantity()),
    refType: Type.Optional(Text(100, { minLength: 1 })),
    ref: Type.Optional(Text(200, { minLength: 1 })),
    unit: Type.Optional(Text(50)),
    notes: Type.Optional(Text(2000))
  },
  { additionalProperties: false }
)

export const orderItemSchema = Type.Object(
  {
    id: IdString(),
    name: Text(500),
    quantity: Quantity(),
    refType: Type.Optional(Text(100)),
    ref: Type.Optional(Text(200)),
    unit: Type.Optional(Text(50)),
    price: Type.Optional(Money()),
    currency: Type.Optional(Currency()),
    notes: Type.Optional(Text(2000)),
    confirmedAt: Type.Optional(Timestamp()),
    confirmedBy: Type.Optional(Type.Union([IdString(), Type.Null()]))
  },
  { additionalProperties: false }
)

const Stamp = () => Type.Optional(Type.Union([Timestamp(), Type.Null()]))
const Actor = () => Type.Optional(Type.Union([IdString(), Type.Null()]))

export const orderSchema = Type.Object(
  {
    ...serverFields,
    owner: Type.Object({ organization: IdString() }),
    requestedForType: Text(100),
    requestedFor: IdString(),
    items: Type.Array(orderItemSchema),
    notes: Type.Optional(Text(5000)),
    status: Type.String(),
    statusHistory: Type.Array(
      Type.Object({ status: Type.String(), at: Timestamp(), by: Type.Union([IdString(), Type.Null()]) })
    ),
    pendingAt: Stamp(),
    pendingBy: Actor(),
    preparingAt: Stamp(),
    preparingBy: Actor(),
    readyAt: Stamp(),
    readyBy: Actor(),
    dispatchedAt: Stamp(),
    dispatchedBy: Actor(),
    completedAt: Stamp(),
    completedBy: Actor(),
    cancelledAt: Stamp(),
    cancelledBy: Actor(),
    // A dispatch from a stockroom: where from, and the movement of each inventory-variant item.
    dispatchedFrom: Type.Optional(IdString()),
    consumed: Type.Optional(
      Type.Array(
        Type.Object({ item: IdString(), stock: IdString(), movement: IdString(), quantity: Type.Number() })
      )
    ),
    updatedAt: Timestamp()
  },
  { additionalProperties: false }
)
export type Order = Static<typeof orderSchema>

export const orderDataSchema = Type.Object(
  {
    owner: Type.Object({ organization: IdString() }, { additionalProperties: false }),
    // One of config `orders.requestedForTypes`.
    requestedForType: Text(100, { minLength: 1 }),
    requestedFor: IdString(),
    items: Type.Array(orderItemDataSchema, { minItems: 1, maxItems: 200 }),
    notes: Type.Optional(Text(5000))
  },
  { additionalProperties: false }
)

// One operation per PATCH: a status move (to `dispatched` optionally with the `stockroom` to consume stock
// from), an item confirmation, or new notes.
export const orderPatchSchema = Type.Object(
  {
    changeStatus: Type.Optional(Text(50)),
    stockroom: Type.Optional(IdString()),
    confirmItem: Type.Optional(Text(64)),
    notes: Type.Optional(Text(5000))
  },
  { additionalProperties: false }
)

export const orderQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    'owner.organization': IdString(),
    requestedForType: Type.String(),
    requestedFor: IdString(),
    status: Type.String(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

// The concurrency counter and the marker of a dispatch under way never leave the server.
export const orderInternals = ['rev', 'dispatching'] as const

/** What clients see of a order. */
export const orderExternalResolver = omittingResolver<Order>(orderInternals)
