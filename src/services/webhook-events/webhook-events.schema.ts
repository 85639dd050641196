// deliverySchema → Delivery → pingSchema → retrySchema → deliveryQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Timestamp } from '../../schema/common'
import { resolve } from '@feathersjs/schema'
import { hidden, type ResolverContext } from '../../schema/resolvers'

/** A delivery (webhook event) as clients read it. */
export const deliverySchema = Type.Object(
  {
    id: IdString(),
    webhook: IdString(),
    organization: Type.Optional(IdString()),
    account: Type.Optional(IdString()),
    event: Type.String(),
    payload: Type.Optional(Type.Unknown()),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Number(),
    nextAttemptAt: Timestamp(),
    lastAttemptAt: Type.Optional(Timestamp()),
    lastResponse: Type.Optional(
      Type.Object({
        status: Type.Optional(Type.Number()),
        error: Type.Optional(Type.String()),
        durationMs: Type.Number(),
        at: Timestamp()
      })
    ),
    deliveredAt: Type.Optional(Timestamp()),
    failedAt: Type.Optional(Timestamp()),
    retries: Type.Optional(Type.Number()),
    retriedAt: Type.Optional(Timestamp()),
    createdAt: Timestamp()
  },
  { additionalProperties: false }
)
export type Delivery = Static<typeof deliverySchema>

/** POST /webhook-events { webhook, event: "ping" } */
export const pingSchema = Type.Object(
  { webhook: IdString(), event: Type.Literal('ping') },
  { additionalProperties: false }
)

/** PATCH /webhook-events/:id { retry: true } */
export const retrySchema = Type.Object({ retry: Type.Literal(true) }, { additionalProperties: false })

export const deliveryQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    webhook: IdString(),
    event: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Number(),
    createdAt: Type.Number()
  })
)

/** A delivery as stored: its payload as JSON text (so every document shape is stored alike on both engines), and the
 * worker's queue (the webhook id while pending), lease and audit mark (src/jobs/webhook-queue.ts). */
export type StoredDelivery = Delivery & {
  payloadJson?: string
  queue?: string
  /** 0 when free; else the time until which one worker owns the attempt in flight. */
  leaseUntil: number
  leaseOwner?: string
  /** When its delivery to the receiver was recorded in the audit trail (deliveries of patient data only). */
  auditedAt?: number
}

/** The worker's fields of a stored delivery (its queue, lease and audit mark), never sent to clients. */
export const deliveryInternals = ['payloadJson', 'queue', 'leaseUntil', 'leaseOwner', 'auditedAt'] as const

/** What clients see of a delivery: the payload as sent (parsed), without the worker's fields. */
export const deliveryExternalResolver = resolve<StoredDelivery, ResolverContext>({
  ...hidden(deliveryInternals),
  payload: async (value, delivery) =>
    delivery.payloadJson === undefined ? value : JSON.parse(delivery.payloadJson)
})
