// stockSchema → Stock → stockDataSchema → stockPatchSchema → stockQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields, QueryNullable } from '../../schema/common'
import { Sku, StockQuantity } from '../inventory-variants/inventory-variants.schema'
import { omittingResolver } from '../../schema/resolvers'

export const stockSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    // The variant's sku (unique in the facility).
    variant: Sku(),
    stockroom: IdString(),
    lot: Type.Union([Text(100), Type.Null()]),
    quantity: StockQuantity(),
    reorderLevel: Type.Optional(StockQuantity()),
    expiresAt: Type.Optional(Timestamp()),
    closed: Type.Boolean(),
    updatedAt: Timestamp()
  },
  { additionalProperties: false }
)
export type Stock = Static<typeof stockSchema>

export const stockDataSchema = Type.Object(
  {
    facility: IdString(),
    variant: Sku(),
    stockroom: IdString(),
    lot: Type.Optional(Text(100, { minLength: 1 })),
    // The initial quantity, recorded as the stock's first movement.
    quantity: Type.Optional(StockQuantity()),
    reorderLevel: Type.Optional(StockQuantity()),
    expiresAt: Type.Optional(Timestamp())
  },
  { additionalProperties: false }
)

// A movement (`adjust: n` with a `reason`, or the `$inc: { quantity: n }` body operator) or a change of the
// stock's own settings; `quantity` itself is never written directly.
export const stockPatchSchema = Type.Object(
  {
    adjust: Type.Optional(Type.Integer({ minimum: -1e9, maximum: 1e9 })),
    reason: Type.Optional(Text(500, { minLength: 1 })),
    reorderLevel: Type.Optional(StockQuantity()),
    expiresAt: Type.Optional(Timestamp())
  },
  { additionalProperties: false }
)

export const stockQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    variant: Type.String(),
    stockroom: IdString(),
    lot: QueryNullable(Type.String()),
    quantity: Type.Number(),
    closed: Type.Boolean(),
    expiresAt: QueryNullable(Type.Number()),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

// The movements' bookkeeping never leaves the server.
export const stockInternals = ['pending'] as const

/** What clients see of a stock. */
export const stockExternalResolver = omittingResolver<Stock>(stockInternals)
