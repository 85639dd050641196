// notificationTemplateSchema → NotificationTemplate → notificationTemplateDataSchema →
// notificationTemplatePatchSchema → notificationTemplateQuerySchema; and the preview's body
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'
import { channelNames, eventNames } from '../notifications/notifications.schema'

/** One of `values`, typed as their union. */
const literals = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>(Type.Union(values.map((value) => Type.Literal(value))))

/** A BCP 47 language tag: "en", "fil", "es-MX", "zh-Hant-TW". */
const Locale = () => Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$', maxLength: 35 })
/** An email's subject line (a template: Mustache). */
const Subject = () => Text(300, { minLength: 1 })
/** A message body (a template: Mustache). */
const Body = () => Text(5000, { minLength: 1 })

export const templateDefaults = { locale: 'en', active: true }

export const notificationTemplateSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    event: literals(eventNames),
    channel: literals(channelNames),
    locale: Locale(),
    /** Email only (required there). */
    subject: Type.Optional(Subject()),
    body: Body(),
    active: Type.Boolean(),
    // One active template per facility, event, channel and locale, decided by a unique index: that combination
    // while active, else a key unique to the template. Never sent to clients.
    activeKey: Type.String(),
    updatedAt: Timestamp()
  },
  { additionalProperties: false }
)
export type NotificationTemplate = Static<typeof notificationTemplateSchema>

export const notificationTemplateDataSchema = Type.Object(
  {
    facility: IdString(),
    event: literals(eventNames),
    channel: literals(channelNames),
    locale: Type.Optional(Locale()),
    subject: Type.Optional(Subject()),
    body: Body(),
    active: Type.Optional(Type.Boolean())
  },
  { additionalProperties: false }
)

// A template's facility, event and channel never change (write another template instead).
export const notificationTemplatePatchSchema = Type.Object(
  {
    locale: Type.Optional(Locale()),
    subject: Type.Optional(Subject()),
    body: Type.Optional(Body()),
    active: Type.Optional(Type.Boolean())
  },
  { additionalProperties: false }
)

export const notificationTemplateQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    event: Type.String(),
    channel: Type.String(),
    locale: Type.String(),
    active: Type.Boolean(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

/** The active key never leaves the server. */
export const notificationTemplateInternals = ['activeKey'] as const
export const notificationTemplateExternalResolver = omittingResolver<NotificationTemplate>(
  notificationTemplateInternals
)

/** POST /notification-templates/preview: a stored template (`id`) or one being written (`template`), rendered with
 *  the sample data of its event, `sample` laid over it. */
export const templatePreviewDataSchema = Type.Object(
  {
    id: Type.Optional(IdString()),
    template: Type.Optional(
      Type.Object(
        {
          /** The facility whose name the sample uses (its notification managers only). */
          facility: Type.Optional(IdString()),
          event: literals(eventNames),
          channel: literals(channelNames),
          locale: Type.Optional(Locale()),
          subject: Type.Optional(Subject()),
          body: Body()
        },
        { additionalProperties: false }
      )
    ),
    /** Variables overriding the sample data (`{ patient: { firstName: "Ana" } }`). */
    sample: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
  },
  { additionalProperties: false }
)
export type TemplatePreviewData = Static<typeof templatePreviewDataSchema>

export const templatePreviewSchema = Type.Object(
  { subject: Type.Optional(Type.String()), body: Type.String() },
  { additionalProperties: false }
)
export type TemplatePreview = Static<typeof templatePreviewSchema>
