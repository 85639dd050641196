// scheduleSchema → Schedule → scheduleDataSchema → schedulePatchSchema → scheduleQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { partyNamesSchema } from '../appointments/appointments.schema'

/** "HH:MM", 00:00–24:00 (24:00 only as an end). */
const Clock = () => Type.String({ pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$' })
const Day = () => Type.String({ format: 'date' })

export const weeklyWindowSchema = Type.Object(
  { day: Type.Integer({ minimum: 0, maximum: 6 }), start: Clock(), end: Clock() },
  { additionalProperties: false }
)
export const scheduleExceptionSchema = Type.Union([
  Type.Object({ date: Day(), closed: Type.Literal(true) }, { additionalProperties: false }),
  Type.Object({ date: Day(), start: Clock(), end: Clock() }, { additionalProperties: false })
])
export const bookingModes = ['staff', 'patients'] as const
const Booking = () => Type.Union(bookingModes.map((mode) => Type.Literal(mode)))

const limits = {
  slotMinutes: { minimum: 5, maximum: 240, default: 15 },
  bufferMinutes: { minimum: 0, maximum: 120, default: 0 },
  horizonDays: { minimum: 1, maximum: 365, default: 60 },
  minNoticeMinutes: { minimum: 0, maximum: 10080, default: 0 }
} as const
export const scheduleDefaults = {
  slotMinutes: limits.slotMinutes.default,
  bufferMinutes: limits.bufferMinutes.default,
  horizonDays: limits.horizonDays.default,
  minNoticeMinutes: limits.minNoticeMinutes.default,
  booking: 'staff' as const,
  active: true,
  exceptions: []
}
const Int = (key: keyof typeof limits) =>
  Type.Integer({ minimum: limits[key].minimum, maximum: limits[key].maximum })

export const scheduleSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    provider: IdString(),
    timeZone: Text(100),
    weekly: Type.Array(weeklyWindowSchema),
    slotMinutes: Type.Integer(),
    bufferMinutes: Type.Integer(),
    horizonDays: Type.Integer(),
    minNoticeMinutes: Type.Integer(),
    exceptions: Type.Array(scheduleExceptionSchema),
    booking: Booking(),
    active: Type.Boolean(),
    updatedAt: Timestamp(),
    // Never stored: on answers, the provider's and the facility's display names (src/hooks/party-names.ts).
    names: Type.Optional(partyNamesSchema)
  },
  { additionalProperties: false }
)
export type Schedule = Static<typeof scheduleSchema>

const changeable = {
  timeZone: Type.Optional(Text(100, { minLength: 1 })),
  weekly: Type.Optional(Type.Array(weeklyWindowSchema, { maxItems: 100 })),
  slotMinutes: Type.Optional(Int('slotMinutes')),
  bufferMinutes: Type.Optional(Int('bufferMinutes')),
  horizonDays: Type.Optional(Int('horizonDays')),
  minNoticeMinutes: Type.Optional(Int('minNoticeMinutes')),
  exceptions: Type.Optional(Type.Array(scheduleExceptionSchema, { maxItems: 1000 })),
  booking: Type.Optional(Booking()),
  active: Type.Optional(Type.Boolean())
}

export const scheduleDataSchema = Type.Object(
  {
    facility: IdString(),
    provider: IdString(),
    ...changeable,
    weekly: Type.Array(weeklyWindowSchema, { maxItems: 100 })
  },
  { additionalProperties: false }
)

// The facility and the provider of a schedule never change (a new provider is a new schedule).
export const schedulePatchSchema = Type.Object(changeable, { additionalProperties: false })

export const scheduleQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    provider: IdString(),
    booking: Type.String(),
    active: Type.Boolean(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)
