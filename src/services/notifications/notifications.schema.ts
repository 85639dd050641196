// notificationSchema → Notification → notificationQuerySchema (read-only for clients: the server writes the log)
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, QueryNullable, Text, Timestamp, serverFields } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'

const literals = <T extends readonly string[]>(values: T) =>
  Type.Union(values.map((value) => Type.Literal(value)))

// The events that notify, the channels and the statuses (src/notifications/events.ts names them for the domain).
export const eventNames = [
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.cancelled',
  'appointment.reminder',
  'queue.next',
  'queue.called',
  'record.finalized',
  'invoice.finalized'
] as const
export const channelNames = ['email', 'sms'] as const
export const statusNames = ['queued', 'sent', 'failed', 'skipped'] as const

export const notificationSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    event: literals(eventNames),
    channel: literals(channelNames),
    /** The account told. */
    recipient: IdString(),
    /** Where it goes, masked (`a***@example.org`, `+63*****4567`); null when the account has no address. */
    to: Type.Union([Text(320), Type.Null()]),
    status: literals(statusNames),
    /** Why it was skipped or waits: opted-out, no-address, quiet-hours-wait, channel-off, no-longer-due; or the
     *  last delivery error. */
    reason: Type.Optional(Text(500)),
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
    sentAt: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
    /** What it is about: `{ service, id }` (an appointment, a queue item, a record, an invoice). */
    ref: Type.Object({ service: Text(100), id: IdString() }, { additionalProperties: false }),
    locale: Text(20),
    updatedAt: Timestamp(),
    // Server-only: the rendered message, the key that makes it once per recipient, channel and subject, and the
    // delivery claim.
    dedupeKey: Text(500),
    subject: Type.Optional(Text(1000)),
    body: Text(20000),
    leaseUntil: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
    leaseHolder: Type.Optional(Type.Union([Text(200), Type.Null()])),
    /** Written while the change it tells of was still being stored (src/notifications/early.ts): sent only once
     *  that change is known to be stored. */
    unconfirmed: Type.Optional(Type.Boolean())
  },
  { additionalProperties: false }
)
export type Notification = Static<typeof notificationSchema>

export const notificationQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    event: Type.String(),
    channel: Type.String(),
    recipient: IdString(),
    status: Type.String(),
    'ref.service': Type.String(),
    'ref.id': Type.String(),
    nextAttemptAt: QueryNullable(Type.Number()),
    sentAt: QueryNullable(Type.Number()),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

/** Never sent to clients: the message itself (only its metadata is the log), the key, the claim and the mark of
 *  an entry written ahead of its change. */
export const notificationInternals = [
  'dedupeKey',
  'subject',
  'body',
  'leaseUntil',
  'leaseHolder',
  'unconfirmed'
] as const
export const notificationExternalResolver = omittingResolver<Notification>(notificationInternals)
