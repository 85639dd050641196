// Notification settings: one document per facility, `{ facility, channels: { email, sms }, reminderOffsetsMinutes,
// queueNextPosition, senderName, replyTo?, quietHours? }`. `GET /notification-settings/:facility` answers the
// facility's settings — the stored ones, or the defaults of config/ with `stored: false` (and no id) while it has
// written none. `POST { facility, ...fields }` is the one write that creates them: the first creates them over the
// defaults, a later one changes the stored ones (an upsert, one document per facility even under simultaneous
// first writes); `PATCH /notification-settings/:id` changes stored ones. The facility's superadmins and members
// holding the `notifications` privilege write (a plain member 403, a stranger 404); its members read. Facility
// configuration, not patient data: no audit trail.
import { authenticate } from '@feathersjs/authentication'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { externalView } from '../../schema/external'
import {
  checkNotificationManager,
  notificationConfigReadScope,
  notificationConfigWriteScope
} from '../../notifications/manage-access'
import { NotificationSettingsService } from './notification-settings.class'
import {
  notificationSettingsDataSchema,
  notificationSettingsExternalResolver,
  notificationSettingsPatchSchema,
  notificationSettingsQuerySchema
} from './notification-settings.schema'
import { notificationSettingsMethods, notificationSettingsPath } from './notification-settings.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [notificationSettingsPath]: NotificationSettingsService
  }
}

export const notificationSettings = (app: Application, deps: Deps) => {
  app.use(notificationSettingsPath, new NotificationSettingsService(app, deps), {
    methods: [...notificationSettingsMethods],
    events: []
  })

  defineAccess(app, notificationSettingsPath, {
    read: notificationConfigReadScope,
    write: notificationConfigWriteScope,
    create: (access, data) => checkNotificationManager(access, data.facility),
    audience: (doc) => [`organizations/${doc.facility}`],
    organizations: (doc) => [doc.facility]
  })

  app.service(notificationSettingsPath).hooks({
    around: {
      all: [
        authenticate('jwt'),
        externalView(app, notificationSettingsPath, notificationSettingsExternalResolver)
      ],
      find: [validateQueryWith(notificationSettingsQuerySchema), scopeAccess],
      get: [validateQueryWith(notificationSettingsQuerySchema), scopeAccess],
      create: [validateBody({ create: notificationSettingsDataSchema }), scopeAccess, setCreated],
      patch: [
        oneAtATime,
        validateQueryWith(notificationSettingsQuerySchema),
        scopeAccess,
        validateBody({ patch: notificationSettingsPatchSchema })
      ]
    }
  })
}
