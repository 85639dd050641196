// invoiceSchema → Invoice → invoiceDataSchema → invoicePatchSchema → invoiceQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields, QueryNullable } from '../../schema/common'
import { Currency, FinalizeFlag, ListValue, Money, stateFields } from '../../schema/billing'
import { omittingResolver } from '../../schema/resolvers'

const invoiceFields = {
  // One of config `billing.invoiceTypes`.
  type: ListValue(),
  // The billed party's id (for example a patient uid) and its kind, one of config `billing.subjectTypes`.
  subject: IdString(),
  subjectType: ListValue(),
  dueAt: Type.Optional(Timestamp()),
  notes: Type.Optional(Text(5000))
}

export const invoiceSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    ...invoiceFields,
    currency: Currency(),
    // The medical encounter that created this invoice, or null.
    encounter: Type.Union([IdString(), Type.Null()]),
    ...stateFields,
    // Computed by the server from the items (price × quantity) and their payments.
    total: Money(),
    paid: Money(),
    balance: Type.Number(),
    itemCount: Type.Integer({ minimum: 0 })
  },
  { additionalProperties: false }
)
export type Invoice = Static<typeof invoiceSchema>

export const invoiceDataSchema = Type.Object(
  { facility: IdString(), ...invoiceFields, currency: Type.Optional(Currency()) },
  { additionalProperties: false }
)

export const invoicePatchSchema = Type.Object(
  { ...Type.Partial(Type.Object(invoiceFields)).properties, finalize: Type.Optional(FinalizeFlag()) },
  { additionalProperties: false }
)

export const invoiceQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    type: Type.String(),
    subject: IdString(),
    subjectType: Type.String(),
    status: Type.String(),
    encounter: QueryNullable(IdString()),
    currency: Type.String(),
    total: Type.Number(),
    paid: Type.Number(),
    balance: Type.Number(),
    dueAt: QueryNullable(Type.Number()),
    createdAt: Type.Number(),
    finalizedAt: QueryNullable(Type.Number()),
    updatedAt: QueryNullable(Type.Number())
  })
)

/** Internal bookkeeping of an invoice (totals revision, finalize and cascade markers) that never leaves the server. */
export const invoiceInternals = [
  'totalsRev',
  'totalsAt',
  'finalizePending',
  'deleting',
  'deletingAt'
] as const

/** What clients see of an invoice. */
export const invoiceExternalResolver = omittingResolver<Invoice>(invoiceInternals)
