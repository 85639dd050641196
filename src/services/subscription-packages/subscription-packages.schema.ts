// productSchema → packageSchema → Package → packageDataSchema → packagePatchSchema → packageQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields, QueryNullable } from '../../schema/common'

/** Product keys name features (`lis`, `inventory`) and limits (`memberSeatsMax`); they become subscription fields. */
export const PRODUCT_KEY = '^[a-z][A-Za-z0-9]{0,39}$'

const Money = (description: string) => Type.Integer({ minimum: 0, maximum: 1e12, description })

export const productSchema = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal('feature'),
        base: Type.Boolean({ description: 'Whether the feature is on without a toggle' }),
        max: Type.Optional(Type.Boolean()),
        toggleable: Type.Boolean({
          description:
            'Whether a subscriber may switch it with PATCH /subscriptions/:id { <key>: true|false }'
        }),
        price: Money('Price of switching it on, per interval, in the smallest currency unit (0: free)')
      },
      { additionalProperties: false, title: 'feature' }
    ),
    Type.Object(
      {
        type: Type.Literal('consumable'),
        base: Type.Number({ minimum: 0, description: 'The amount included' }),
        max: Type.Optional(Type.Number({ minimum: 0, description: 'The most the package allows' })),
        toggleable: Type.Boolean(),
        price: Money('Price per interval, in the smallest currency unit')
      },
      { additionalProperties: false, title: 'consumable' }
    )
  ],
  { description: 'A feature (on/off) or a consumable (an amount)' }
)
export type Product = Static<typeof productSchema>

const Products = () =>
  Type.Record(Type.String({ pattern: PRODUCT_KEY }), productSchema, {
    description:
      'Features and limits by key (e.g. lis, ris, pme, pharmacy, inventory, dental, onlineBooking, onlinePayments, memberSeatsMax, storageMax, smsCreditsMax)'
  })

const packageFields = {
  name: Text(200, { minLength: 1 }),
  description: Type.Optional(Text(5000)),
  type: Text(100, { minLength: 1, description: 'The organization type it is for, e.g. facility' }),
  types: Type.Array(Text(100, { minLength: 1 }), {
    maxItems: 50,
    description: 'Facility kinds it suits, e.g. clinic, diagnostic-center, pharmacy'
  }),
  price: Money('Price per interval in the smallest currency unit (0: free)'),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. USD' }),
  interval: Type.Union([Type.Literal('month'), Type.Literal('year')]),
  trialDays: Type.Integer({ minimum: 0, maximum: 365 }),
  active: Type.Boolean(),
  products: Products()
}

export const packageSchema = Type.Object(
  {
    ...serverFields,
    ...packageFields,
    // The config key of a package created from config on first start.
    key: Type.Optional(Type.String()),
    requiresPayment: Type.Boolean({ description: 'Derived: price > 0' }),
    updatedAt: Type.Optional(Timestamp())
  },
  { additionalProperties: false }
)
export type Package = Static<typeof packageSchema>

export const packageDataSchema = Type.Object(
  {
    ...packageFields,
    description: Type.Optional(Text(5000)),
    types: Type.Optional(packageFields.types),
    trialDays: Type.Optional(packageFields.trialDays),
    active: Type.Optional(packageFields.active),
    interval: Type.Optional(packageFields.interval),
    products: Type.Optional(Products())
  },
  { additionalProperties: false }
)

export const packagePatchSchema = Type.Partial(Type.Object(packageFields), { additionalProperties: false })

export const packageQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    key: QueryNullable(Type.String()),
    name: Type.String(),
    type: Type.String(),
    types: Type.String(),
    active: Type.Boolean(),
    price: Type.Number(),
    currency: Type.String(),
    interval: Type.String(),
    createdAt: Type.Number()
  })
)
