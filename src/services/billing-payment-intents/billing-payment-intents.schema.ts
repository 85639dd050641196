// intentSchema → Intent → intentDataSchema → intentPatchSchema → intentQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields, QueryNullable } from '../../schema/common'
import { Currency, Money } from '../../schema/billing'
import { omittingResolver } from '../../schema/resolvers'

const Quantity = (description?: string) =>
  Type.Number({ exclusiveMinimum: 0, maximum: 1e6, ...(description ? { description } : {}) })
// The server prices these lines per whole unit (src/billing/intents.ts checks it, naming the item's quantity).
const WholeQuantity = () => Quantity('A whole number of at least 1')
const Url = () => Type.String({ minLength: 1, maxLength: 2000 })
const Nullable = <T extends ReturnType<typeof IdString>>(schema: T) => Type.Union([schema, Type.Null()])

// The three item forms; the server prices the first two (a client price is not accepted for them).
export const intentItemDataSchema = Type.Union([
  Type.Object(
    {
      type: Type.Literal('inventory-variant'),
      ref: Text(200, { minLength: 1, description: 'The variant sku in the facility' }),
      quantity: WholeQuantity()
    },
    { additionalProperties: false, title: 'inventory variant' }
  ),
  Type.Object(
    {
      type: Type.Literal('service'),
      ref: IdString({ description: 'A service id of the facility catalogue' }),
      quantity: WholeQuantity()
    },
    { additionalProperties: false, title: 'service' }
  ),
  Type.Object(
    { name: Text(500, { minLength: 1 }), amountPerItem: Money(), quantity: Quantity() },
    { additionalProperties: false, title: 'custom item' }
  )
])

const intentItemSchema = Type.Object(
  {
    type: Type.Optional(Type.String()),
    ref: Type.Optional(Type.String()),
    name: Type.String(),
    quantity: Type.Number(),
    amountPerItem: Type.Number(),
    amount: Type.Number()
  },
  { additionalProperties: false }
)

const Status = () =>
  Type.Union(
    ['created', 'approved', 'capturing', 'captured', 'cancelled', 'failed'].map((s) => Type.Literal(s))
  )

export const intentSchema = Type.Object(
  {
    ...serverFields,
    gatewayType: Type.String(),
    gateway: Type.String(),
    method: Type.String(),
    currency: Currency(),
    items: Type.Array(intentItemSchema),
    netAmount: Type.Number({ description: 'What the payer pays: Σ quantity × unit price' }),
    receivables: Type.Object(
      { gross: Type.Number(), fees: Type.Number(), net: Type.Number() },
      {
        description:
          'gross = netAmount; fees from the fee schedule; net = gross − fees (what the facility receives)'
      }
    ),
    facility: Nullable(IdString()),
    invoice: Nullable(IdString()),
    account: Nullable(IdString()),
    gatewayReturnURL: Type.String(),
    gatewayCancelURL: Type.String(),
    gatewayOrderId: Type.Optional(Type.String()),
    checkout: Type.Optional(Type.Object({ approvalURL: Type.String() })),
    status: Status(),
    statusHistory: Type.Array(Type.Object({ status: Type.String(), at: Timestamp() })),
    expiresAt: Timestamp(),
    approvedAt: Type.Optional(Timestamp()),
    capturedAt: Type.Optional(Timestamp()),
    cancelledAt: Type.Optional(Timestamp()),
    cancelReason: Type.Optional(Type.String()),
    failedAt: Type.Optional(Timestamp()),
    failureReason: Type.Optional(Type.String()),
    payments: Type.Optional(
      Type.Array(IdString(), { description: 'The billing payments a capture recorded on the invoice' })
    ),
    updatedAt: Timestamp()
  },
  { additionalProperties: false }
)
export type Intent = Static<typeof intentSchema>

export const intentDataSchema = Type.Object(
  {
    gatewayType: Text(100, {
      minLength: 3,
      description: '<gateway>-<method>, e.g. sandbox-card, paypal-paypal'
    }),
    currency: Currency(),
    items: Type.Array(intentItemDataSchema, { minItems: 1, maxItems: 100 }),
    gatewayReturnURL: Type.Optional(Url()),
    gatewayCancelURL: Type.Optional(Url()),
    facility: Type.Optional(IdString()),
    invoice: Type.Optional(IdString())
  },
  { additionalProperties: false }
)

export const intentPatchSchema = Type.Object({ capture: Type.Literal(true) }, { additionalProperties: false })

export const intentQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: QueryNullable(IdString()),
    invoice: QueryNullable(IdString()),
    account: QueryNullable(IdString()),
    status: Type.String(),
    gatewayType: Type.String(),
    currency: Type.String(),
    netAmount: Type.Number(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

/**
 * find also takes `$analytics`: sums over the selected intents (src/billing/intents.ts intentAnalytics). One
 * object with the query's own fields (not an intersection, which would let other fields through to the store).
 */
export const intentFindQuerySchema = Type.Object(
  {
    ...intentQuerySchema.properties,
    $analytics: Type.Optional(
      Type.Union([Type.Literal('net-amount-total'), Type.Literal('receivables-total')])
    )
  },
  { additionalProperties: false }
)

// The approval page's secret, the minor-unit amounts and the capture marker stay in the server.
export const intentInternals = ['checkoutSecret', 'amounts', 'capturingBy', 'capturingAt']

/** What clients see of a payment intent. */
export const intentExternalResolver = omittingResolver<Intent>(intentInternals)
