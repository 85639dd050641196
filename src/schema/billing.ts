// Schema pieces shared by the billing services' contracts (money, currency, configurable values, draft/finalized
// state), in the base layer so every contract file may use them.
import { Type } from '@feathersjs/typebox'
import { IdString, Timestamp } from './common'

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

/** One Idempotency-Key as stored (src/hooks/idempotency-key.ts): the request it was first sent with, and the
 *  answer once there is one (a result, or a client error as JSON). */
export interface IdempotencyKeyRecord {
  id: string
  /** `<account>:<path>:<method>:<header value>`, unique. */
  key: string
  /** A hash of the request's id, body and operators. */
  request: string
  state: 'pending' | 'done'
  result?: unknown
  error?: Record<string, unknown>
  createdAt: number
  expiresAt: number
}
