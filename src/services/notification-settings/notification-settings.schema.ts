// notificationSettingsSchema → NotificationSettingsDoc → notificationSettingsDataSchema →
// notificationSettingsPatchSchema → notificationSettingsQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { resolve } from '@feathersjs/schema'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import type { ResolverContext, Stored } from '../../schema/resolvers'

/** "HH:MM", 00:00–23:59, local to the facility. */
const Clock = () => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' })

const channels = Type.Object({ email: Type.Boolean(), sms: Type.Boolean() }, { additionalProperties: false })
/** Minutes before an appointment's start at which a reminder goes: 5 minutes to 14 days, at most 5, no repeats. */
const reminderOffsets = Type.Array(Type.Integer({ minimum: 5, maximum: 20160 }), {
  maxItems: 5,
  uniqueItems: true
})
/** The waiting position at which a patient is told they are next: 1 to 10. */
const queueNextPosition = Type.Integer({ minimum: 1, maximum: 10 })
const senderName = Text(100, { minLength: 1 })
const replyTo = Type.String({ format: 'email', maxLength: 320 })
/** Messages due inside the quiet hours wait until they end (a span across midnight when end ≤ start). */
const quietHours = Type.Object({ start: Clock(), end: Clock() }, { additionalProperties: false })

export const notificationSettingsSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    channels,
    reminderOffsetsMinutes: reminderOffsets,
    queueNextPosition,
    senderName,
    replyTo: Type.Optional(replyTo),
    quietHours: Type.Optional(quietHours),
    updatedAt: Timestamp(),
    updatedBy: Type.Optional(Type.Union([IdString(), Type.Null()]))
  },
  { additionalProperties: false }
)
export type NotificationSettingsDoc = Static<typeof notificationSettingsSchema>

// The fields a manager sets; each optional (what is left out keeps its value, or the default); `null` clears
// `replyTo` and `quietHours`.
const settable = {
  channels: Type.Optional(
    Type.Object(
      { email: Type.Optional(Type.Boolean()), sms: Type.Optional(Type.Boolean()) },
      { additionalProperties: false }
    )
  ),
  reminderOffsetsMinutes: Type.Optional(reminderOffsets),
  queueNextPosition: Type.Optional(queueNextPosition),
  senderName: Type.Optional(senderName),
  replyTo: Type.Optional(Type.Union([replyTo, Type.Null()])),
  quietHours: Type.Optional(Type.Union([quietHours, Type.Null()]))
}

/** POST: the first write of a facility's settings creates them, a later one changes them (an upsert). */
export const notificationSettingsDataSchema = Type.Object(
  { facility: IdString(), ...settable },
  { additionalProperties: false }
)

/** PATCH /notification-settings/:id — a facility's settings never move to another facility. */
export const notificationSettingsPatchSchema = Type.Object(settable, { additionalProperties: false })

export const notificationSettingsQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

/** What clients see: the stored fields plus `stored` — false when the facility has set nothing yet and these are
 *  the defaults of config/ (then there is no `id`). */
export const notificationSettingsExternalResolver = resolve<
  Stored<NotificationSettingsDoc & { stored?: boolean }>,
  ResolverContext
>({
  stored: async (value) => value ?? true
})
