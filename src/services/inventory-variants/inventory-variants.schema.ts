// variantSchema → Variant → variantDataSchema → variantPatchSchema → variantQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields, QueryNullable } from '../../schema/common'
import { Currency, Money } from '../../schema/billing'

/** The largest quantity a stock may hold (movements that would pass it are refused). */
export const maxStockQuantity = 1e9

/** Stock quantities are whole units (tablets, boxes, vials). */
export const StockQuantity = (options: Record<string, unknown> = {}) =>
  Type.Integer({ minimum: 0, maximum: maxStockQuantity, ...options })

const variantFields = {
  name: Text(200, { minLength: 1 }),
  description: Type.Optional(Text(5000)),
  unit: Type.Optional(Text(50)),
  price: Type.Optional(Money()),
  currency: Type.Optional(Currency()),
  barcode: Type.Optional(Text(100)),
  tags: Type.Optional(Type.Array(Text(100), { maxItems: 50 })),
  unitCost: Type.Optional(Money()),
  reorderLevel: Type.Optional(StockQuantity()),
  isMedicine: Type.Optional(Type.Boolean()),
  sellable: Type.Optional(Type.Boolean())
}

export const Sku = () => Text(100, { minLength: 1 })

export const variantSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    sku: Sku(),
    ...variantFields,
    currency: Currency(),
    archived: Type.Boolean(),
    archivedAt: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
    archivedBy: Type.Optional(Type.Union([IdString(), Type.Null()])),
    stocked: Type.Boolean(),
    ordered: Type.Boolean(),
    updatedAt: Timestamp()
  },
  { additionalProperties: false }
)
export type Variant = Static<typeof variantSchema>

export const variantDataSchema = Type.Object(
  {
    facility: IdString(),
    sku: Sku(),
    ...variantFields,
    // A first stock in the same request: its stockroom, and its quantity (default 0).
    initialStock: Type.Optional(StockQuantity()),
    stockroom: Type.Optional(IdString())
  },
  { additionalProperties: false }
)

// The sku is the variant's key for its stocks and orders: it never changes.
export const variantPatchSchema = Type.Object(
  { ...Type.Partial(Type.Object(variantFields)).properties, archive: Type.Optional(Type.Boolean()) },
  { additionalProperties: false }
)

export const variantQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    sku: Type.String(),
    name: Type.String(),
    unit: QueryNullable(Type.String()),
    barcode: QueryNullable(Type.String()),
    tags: QueryNullable(Type.String()),
    price: QueryNullable(Type.Number()),
    isMedicine: QueryNullable(Type.Boolean()),
    sellable: QueryNullable(Type.Boolean()),
    archived: Type.Boolean(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)
