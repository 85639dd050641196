// auditEventSchema → AuditEventDoc → auditEventQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Timestamp, QueryNullable } from '../../schema/common'

const actions = ['read', 'create', 'patch', 'update', 'remove', 'login', 'login-failed', 'mfa', 'action-code', 'logout-everywhere'] as const

/** An audit event as clients read it (src/audit/chain.ts). Never record contents, tokens, codes or passwords. */
export const auditEventSchema = Type.Object(
  {
    id: IdString(),
    seq: Type.Integer({ minimum: 1 }),
    at: Timestamp(),
    actor: Type.Union([IdString(), Type.Null()]),
    subject: Type.Optional(Type.String()),
    action: Type.Union(actions.map((action) => Type.Literal(action))),
    service: Type.String(),
    ids: Type.Array(Type.String()),
    patient: Type.Optional(Type.String()),
    facility: Type.Optional(Type.String()),
    outcome: Type.Union([Type.Literal('allowed'), Type.Literal('denied')]),
    status: Type.Integer(),
    ip: Type.Optional(Type.String()),
    userAgent: Type.Optional(Type.String()),
    requestId: Type.Optional(Type.String()),
    prevHash: Type.String(),
    hash: Type.String()
  },
  { additionalProperties: false }
)
export type AuditEventDoc = Static<typeof auditEventSchema>

/** The documented filters: patient, actor, service, action, at ranges (plus facility, outcome, id, seq). */
export const auditEventQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    seq: Type.Integer(),
    at: Type.Number(),
    actor: QueryNullable(IdString()),
    patient: QueryNullable(IdString()),
    facility: QueryNullable(IdString()),
    service: Type.String({ maxLength: 100 }),
    action: Type.String({ maxLength: 40 }),
    outcome: Type.String({ maxLength: 10 }),
    status: Type.Integer()
  })
)

/** The answer of `subscribe`/`unsubscribe` (an admin's Socket.IO connection receiving audit events or not). */
export const auditSubscriptionSchema = Type.Object({ subscribed: Type.Boolean() }, { additionalProperties: false })
export type AuditSubscription = Static<typeof auditSubscriptionSchema>
