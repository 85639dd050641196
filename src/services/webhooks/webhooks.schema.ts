// webhookSchema → Webhook → webhookDataSchema → webhookPatchSchema → webhookQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields, QueryNullable } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'

const url = Text(2048, { minLength: 1 })
const events = Text(2000, { minLength: 1 })

export const webhookSchema = Type.Object(
  {
    ...serverFields,
    organization: Type.Optional(IdString()),
    account: Type.Optional(IdString()),
    url,
    events,
    active: Type.Boolean(),
    /** Shown once, in the response that created the webhook. */
    secret: Type.Optional(Type.String()),
    consecutiveFailures: Type.Optional(Type.Number()),
    failingSince: Type.Optional(Timestamp()),
    lastFailureAt: Type.Optional(Timestamp()),
    deactivatedAt: Type.Optional(Timestamp()),
    deactivatedReason: Type.Optional(Type.String()),
    updatedAt: Type.Optional(Timestamp())
  },
  { additionalProperties: false }
)
export type Webhook = Static<typeof webhookSchema>

/** Stored fields that never leave the server (`secret` only in the creation response). */
export const webhookInternals = ['secret', 'topics', 'dueAt', 'queueVersion'] as const

// Exactly one of organization or account (checked by the hooks, which name both fields).
export const webhookDataSchema = Type.Object(
  {
    organization: Type.Optional(IdString()),
    account: Type.Optional(IdString()),
    active: Type.Optional(Type.Boolean({ default: true })),
    url,
    events
  },
  { additionalProperties: false }
)
export type WebhookData = Static<typeof webhookDataSchema>

export const webhookPatchSchema = Type.Object(
  { active: Type.Optional(Type.Boolean()), url: Type.Optional(url), events: Type.Optional(events) },
  { additionalProperties: false, minProperties: 1 }
)

export const webhookQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    organization: QueryNullable(IdString()),
    account: QueryNullable(IdString()),
    active: Type.Boolean(),
    url: Type.String(),
    events: Type.String(),
    createdAt: Type.Number()
  })
)

/** What clients see of a webhook (reads, events): none of its internals. The creation response adds the secret,
 * shown that once (src/services/webhook-events/webhook-events.class.ts). */
export const webhookExternalResolver = omittingResolver<Webhook>(webhookInternals)
