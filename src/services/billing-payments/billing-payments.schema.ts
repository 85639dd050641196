// paymentSchema → Payment → paymentDataSchema → paymentPatchSchema → paymentQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields, QueryNullable } from '../../schema/common'
import { Currency, FinalizeFlag, ListValue, stateFields } from '../../schema/billing'
import { omittingResolver } from '../../schema/resolvers'

/** A payment amount: more than 0 (and at most `billing.moneyDecimals` decimals, checked by the hooks). */
const PaymentAmount = () => Type.Number({ exclusiveMinimum: 0, maximum: 1e12 })

const paymentFields = {
  // One of config `billing.paymentTypes`.
  type: ListValue(),
  // One of config `billing.paymentMethods`.
  paymentMethod: ListValue(),
  // An external reference: receipt number, check number, transaction id…
  reference: Type.Optional(Text(200)),
  notes: Type.Optional(Text(5000)),
  // When the money was received; defaults to the time of recording.
  paidAt: Type.Optional(Timestamp())
}

export const paymentSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    invoice: IdString(),
    item: IdString(),
    currency: Currency(),
    ...paymentFields,
    amount: PaymentAmount(),
    paidAt: Timestamp(),
    ...stateFields,
    // A voided payment stays for the books but no longer counts as paid.
    status: Type.Union([Type.Literal('draft'), Type.Literal('finalized'), Type.Literal('voided')]),
    voidedAt: Type.Optional(Timestamp()),
    voidedBy: Type.Optional(Type.Union([IdString(), Type.Null()])),
    voidReason: Type.Optional(Text(2000))
  },
  { additionalProperties: false }
)
export type Payment = Static<typeof paymentSchema>

export const paymentDataSchema = Type.Object(
  { item: IdString(), ...paymentFields, amount: PaymentAmount() },
  { additionalProperties: false }
)

// The amount of a recorded payment never changes (its item's reservation depends on it); `void: true` (with an
// optional `voidReason`) voids it instead.
export const paymentPatchSchema = Type.Object(
  {
    ...Type.Partial(Type.Object(paymentFields)).properties,
    finalize: Type.Optional(FinalizeFlag()),
    void: Type.Optional(Type.Literal(true)),
    voidReason: Type.Optional(Text(2000))
  },
  { additionalProperties: false }
)

export const paymentQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    invoice: IdString(),
    item: IdString(),
    type: Type.String(),
    paymentMethod: Type.String(),
    status: Type.String(),
    amount: Type.Number(),
    reference: QueryNullable(Type.String()),
    paidAt: Type.Number(),
    createdAt: Type.Number(),
    finalizedAt: QueryNullable(Type.Number())
  })
)

/** The marker of a void under way, which never leaves the server. */
export const paymentInternals = ['voidPending'] as const

/** What clients see of a payment. */
export const paymentExternalResolver = omittingResolver<Payment>(paymentInternals)
