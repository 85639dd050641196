// auditEventSchema → AuditEventDoc → auditEventQuerySchema → verifyQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Timestamp, QueryNullable } from '../../schema/common'
import { AUDIT_ACTIONS } from '../../schema/audit'

// The privilege and setting fields of a change event (never secrets or hashes).
const changeFields = () =>
  Type.Record(
    Type.String(),
    Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null(), Type.Array(Type.String())]),
    {
      description: 'The privilege or setting fields of a change event (never secrets or hashes)'
    }
  )

/** An audit event as clients read it (src/audit/chain.ts). Never record contents, tokens, codes or passwords. */
export const auditEventSchema = Type.Object(
  {
    id: IdString(),
    seq: Type.Integer({ minimum: 1 }),
    at: Timestamp(),
    actor: Type.Union([IdString(), Type.Null()]),
    subject: Type.Optional(Type.String()),
    action: Type.Union(AUDIT_ACTIONS.map((action) => Type.Literal(action))),
    service: Type.String(),
    ids: Type.Array(Type.String()),
    patient: Type.Optional(Type.String()),
    facility: Type.Optional(Type.String()),
    outcome: Type.Union([Type.Literal('allowed'), Type.Literal('denied')]),
    status: Type.Integer(),
    ip: Type.Optional(Type.String()),
    userAgent: Type.Optional(Type.String()),
    requestId: Type.Optional(Type.String()),
    via: Type.Optional(
      Type.Union(['rest', 'socketio', 'realtime', 'webhook'].map((via) => Type.Literal(via)))
    ),
    webhook: Type.Optional(IdString()),
    /** Privilege and configuration events: the account whose rights or settings changed. */
    account: Type.Optional(Type.String()),
    before: Type.Optional(changeFields()),
    after: Type.Optional(changeFields()),
    prevHash: Type.String(),
    hash: Type.String(),
    // Asked with `$names=true`, never stored: the actor's display name and role, the facility's name.
    actorName: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    actorRole: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    facilityName: Type.Optional(Type.Union([Type.String(), Type.Null()]))
  },
  { additionalProperties: false }
)
export type AuditEventDoc = Static<typeof auditEventSchema>

/**
 * The filters and sort keys: every recorded field except the lists and objects (`ids`, `before`, `after`). The
 * documented filters (patient, actor, account, facility) have store indexes; the others are for reviewers' reports.
 */
export const auditEventQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    seq: Type.Integer(),
    at: Type.Number(),
    actor: QueryNullable(IdString()),
    subject: QueryNullable(Type.String({ maxLength: 254 })),
    account: QueryNullable(IdString()),
    patient: QueryNullable(IdString()),
    facility: QueryNullable(IdString()),
    service: Type.String({ maxLength: 100 }),
    action: Type.String({ maxLength: 40 }),
    outcome: Type.String({ maxLength: 10 }),
    status: Type.Integer(),
    via: QueryNullable(Type.String({ maxLength: 20 })),
    webhook: QueryNullable(IdString()),
    ip: QueryNullable(Type.String({ maxLength: 100 })),
    userAgent: QueryNullable(Type.String({ maxLength: 1000 })),
    requestId: QueryNullable(Type.String({ maxLength: 200 })),
    prevHash: Type.String({ maxLength: 64 }),
    hash: Type.String({ maxLength: 64 })
  })
)

/** GET /audit-events/verify?seq=…&hash=…: a head an outside witness kept (an `audit.anchor` it received), to check. */
export const verifyQuerySchema = Type.Object(
  {
    seq: Type.Optional(Type.Integer({ minimum: 1 })),
    hash: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' }))
  },
  { additionalProperties: false }
)

/** The answer of `subscribe`/`unsubscribe` (an admin's Socket.IO connection receiving audit events or not). */
export const auditSubscriptionSchema = Type.Object(
  { subscribed: Type.Boolean() },
  { additionalProperties: false }
)
export type AuditSubscription = Static<typeof auditSubscriptionSchema>
