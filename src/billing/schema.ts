// Schema pieces shared by the billing services.
import { Type } from '@feathersjs/typebox'
import { IdString, Timestamp } from '../schema/common'

/** A money value in major units (checked against `billing.moneyDecimals` by `checkBillingValues`). */
export const Money = (options: Record<string, unknown> = {}) =>
  Type.Number({ minimum: 0, maximum: 1e12, ...options })
/** An ISO 4217 style currency code. */
export const Currency = () => Type.String({ pattern: '^[A-Z]{3}$' })
/** A value of one of the configurable lists (checked by `checkBillingValues`). */
export const ListValue = () => Type.String({ minLength: 1, maxLength: 100 })

export const BillingStatus = () => Type.Union([Type.Literal('draft'), Type.Literal('finalized')])

/** `finalize: true` in a PATCH body; nothing else is accepted for it. */
export const FinalizeFlag = () => Type.Literal(true)

/** Server-owned state fields of draft/finalized documents. */
export const stateFields = {
  status: BillingStatus(),
  finalizedAt: Type.Union([Timestamp(), Type.Null()]),
  finalizedBy: Type.Union([IdString(), Type.Null()]),
  updatedAt: Type.Optional(Timestamp())
}
