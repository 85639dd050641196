// movementSchema → Movement → movementQuerySchema (the ledger is written by the server only)
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, serverFields, QueryNullable } from '../../schema/common'

export const movementSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    stock: IdString(),
    variant: Text(100),
    stockroom: IdString(),
    lot: Type.Optional(Text(100)),
    // Signed change of the stock's quantity, and the quantity right after it.
    delta: Type.Integer(),
    quantity: Type.Optional(Type.Integer()),
    reason: Text(500),
    // An order's dispatch: the order, the dispatch (its start time), and for a take-back the movement it undoes.
    order: Type.Optional(IdString()),
    dispatch: Type.Optional(Type.Number()),
    undoes: Type.Optional(IdString()),
    status: Type.Literal('applied')
  },
  { additionalProperties: false }
)
export type StockMovement = Static<typeof movementSchema>

export const movementQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    stock: IdString(),
    variant: Type.String(),
    stockroom: IdString(),
    delta: Type.Number(),
    order: QueryNullable(IdString()),
    createdBy: QueryNullable(IdString()),
    createdAt: Type.Number()
  })
)
