// itemSchema → Item → itemDataSchema → itemPatchSchema → itemQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, serverFields, QueryNullable } from '../../schema/common'
import { Currency, FinalizeFlag, ListValue, Money, stateFields } from '../../schema/billing'
import { resolve } from '@feathersjs/schema'
import { toMajor } from '../../schema/money'
import { hidden, type ResolverContext } from '../../schema/resolvers'

const Quantity = () => Type.Number({ exclusiveMinimum: 0, maximum: 1e6 })

const itemFields = {
  // One of config `billing.itemTypes`; a `service` item's `ref` is a service id of the same facility.
  type: ListValue(),
  ref: Type.Optional(Text(200, { minLength: 1 })),
  name: Type.Optional(Text(500)),
  description: Type.Optional(Text(5000)),
  // Price per unit; a `service` item without one takes the service's price.
  price: Type.Optional(Money()),
  quantity: Type.Optional(Quantity())
}

export const itemSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    invoice: IdString(),
    currency: Currency(),
    ...itemFields,
    price: Money(),
    quantity: Quantity(),
    // Computed: price × quantity (the total payable), the sum of the payments, and what remains.
    amount: Money(),
    paid: Money(),
    balance: Money(),
    ...stateFields
  },
  { additionalProperties: false }
)
export type Item = Static<typeof itemSchema>

export const itemDataSchema = Type.Object(
  { invoice: IdString(), ...itemFields },
  { additionalProperties: false }
)

export const itemPatchSchema = Type.Object(
  { ...Type.Partial(Type.Object(itemFields)).properties, finalize: Type.Optional(FinalizeFlag()) },
  { additionalProperties: false }
)

export const itemQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    invoice: IdString(),
    type: Type.String(),
    ref: QueryNullable(Type.String()),
    status: Type.String(),
    price: Type.Number(),
    quantity: Type.Number(),
    amount: Type.Number(),
    createdAt: Type.Number(),
    finalizedAt: QueryNullable(Type.Number()),
    updatedAt: QueryNullable(Type.Number())
  })
)

/** Internal bookkeeping of an item (minor-unit amount, reservation counters, cascade markers) that never leaves the server. */
export const itemInternals = [
  'amountMinor',
  'reserved',
  'pending',
  'deleting',
  'deletingAt',
  'voided'
] as const

/** An item as stored. */
type StoredItem = Item & {
  amountMinor?: number
  reserved?: number
  pending?: unknown
  deleting?: boolean
  deletingAt?: number
  voided?: unknown
}

const major = (
  item: StoredItem,
  context: ResolverContext,
  minor: (amountMinor: number, reserved: number) => number,
  value: number | undefined
) => {
  if (typeof item.amountMinor !== 'number') return value
  const reserved = typeof item.reserved === 'number' ? item.reserved : 0
  const decimals = context.app.get('billing').moneyDecimals
  return toMajor(minor(item.amountMinor, reserved), decimals)
}

/** What clients see of an item: no internals; `paid` and `balance` from the reservation counter. */
export const itemExternalResolver = resolve<StoredItem, ResolverContext>({
  ...hidden(itemInternals),
  paid: async (value, item, context) => major(item, context, (_amount, reserved) => reserved, value),
  balance: async (value, item, context) =>
    major(item, context, (amount, reserved) => amount - reserved, value)
})
