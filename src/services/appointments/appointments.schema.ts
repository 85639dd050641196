// appointmentSchema → Appointment → appointmentDataSchema → appointmentPatchSchema → appointmentQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'

export const appointmentStatuses = [
  'scheduled',
  'checked-in',
  'in-progress',
  'completed',
  'cancelled',
  'no-show'
] as const
export type AppointmentStatus = (typeof appointmentStatuses)[number]

/** The display names an appointment or a schedule is answered with (never stored; null: no name known). */
export const partyNamesSchema = Type.Object(
  {
    provider: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    patient: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    facility: Type.Optional(Type.Union([Type.String(), Type.Null()]))
  },
  { additionalProperties: false }
)

const Stamp = () => Type.Optional(Type.Union([Timestamp(), Type.Null()]))
const Actor = () => Type.Optional(Type.Union([IdString(), Type.Null()]))

export const appointmentSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    provider: IdString(),
    patient: IdString(),
    schedule: IdString(),
    start: Timestamp(),
    end: Timestamp(),
    reason: Type.Optional(Text(2000)),
    type: Type.Optional(Text(100)),
    status: Type.String(),
    statusHistory: Type.Array(
      Type.Object({ status: Type.String(), at: Timestamp(), by: Type.Union([IdString(), Type.Null()]) })
    ),
    cancelReason: Type.Optional(Text(2000)),
    scheduledAt: Stamp(),
    scheduledBy: Actor(),
    'checked-inAt': Stamp(),
    'checked-inBy': Actor(),
    'in-progressAt': Stamp(),
    'in-progressBy': Actor(),
    completedAt: Stamp(),
    completedBy: Actor(),
    cancelledAt: Stamp(),
    cancelledBy: Actor(),
    'no-showAt': Stamp(),
    'no-showBy': Actor(),
    // The slot this appointment holds (`<provider>:<start>`), unique across the store: the booking race is decided
    // by the unique index, never by a read-then-write. Released (`released:<id>`) when the appointment no longer
    // holds its time (cancelled, no-show).
    slotKey: Type.String(),
    updatedAt: Timestamp(),
    // Never stored: on answers, the parties' display names and the facility's time zone (src/hooks/party-names.ts).
    names: Type.Optional(partyNamesSchema),
    timeZone: Type.Optional(Type.String())
  },
  { additionalProperties: false }
)
export type Appointment = Static<typeof appointmentSchema>

export const appointmentDataSchema = Type.Object(
  {
    facility: IdString(),
    provider: IdString(),
    patient: IdString(),
    start: Timestamp(),
    reason: Type.Optional(Text(2000)),
    type: Type.Optional(Text(100))
  },
  { additionalProperties: false }
)

// One operation per PATCH: a status move (`cancelReason` with `cancelled`), or a reschedule ({ start }).
export const appointmentPatchSchema = Type.Object(
  {
    status: Type.Optional(Type.Union(appointmentStatuses.map((status) => Type.Literal(status)))),
    cancelReason: Type.Optional(Text(2000, { minLength: 1 })),
    start: Type.Optional(Timestamp())
  },
  { additionalProperties: false }
)

export const appointmentQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    provider: IdString(),
    patient: IdString(),
    schedule: IdString(),
    status: Type.String(),
    start: Type.Number(),
    end: Type.Number(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

/** The slot key never leaves the server. */
export const appointmentInternals = ['slotKey'] as const
export const appointmentExternalResolver = omittingResolver<Appointment>(appointmentInternals)
