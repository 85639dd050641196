// Notification templates: a facility's own messages, `{ facility, event, channel: "email" | "sms", locale (default
// "en"), subject (email only, required there), body, active (default true) }`, Mustache over the documented
// variables of the event (src/notifications/templates.ts), checked at save: a template that does not compile, or
// uses a variable its event does not have, is a 400 naming `body` (or `subject`); an SMS longer than 480
// characters rendered with the sample data is a 400 naming `body` with that render. At most one active template per
// facility, event, channel and locale (a second: 409 naming `active`). The facility's superadmins and members
// holding the `notifications` privilege write (a plain member 403, a stranger 404); its members read. A facility
// without an active template of its own gets the built-in one of config/. `POST /notification-templates/preview`
// renders one with sample data (its own service, template-preview.class.ts). Facility configuration, not patient
// data: no audit trail.
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
import { NotificationTemplateService } from './notification-templates.class'
import { TemplatePreviewService } from './template-preview.class'
import {
  notificationTemplateDataSchema,
  notificationTemplateExternalResolver,
  notificationTemplatePatchSchema,
  notificationTemplateQuerySchema,
  templatePreviewDataSchema
} from './notification-templates.schema'
import {
  notificationTemplateMethods,
  notificationTemplatePath,
  templatePreviewMethods,
  templatePreviewPath
} from './notification-templates.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [notificationTemplatePath]: NotificationTemplateService
    [templatePreviewPath]: TemplatePreviewService
  }
}

export const notificationTemplates = (app: Application, deps: Deps) => {
  // The preview first: its static path is matched before `notification-templates/:id` either way, but a reader of
  // this file sees that "preview" is no template id.
  app.use(templatePreviewPath, new TemplatePreviewService(app, deps), {
    methods: [...templatePreviewMethods],
    events: []
  })
  app.service(templatePreviewPath).hooks({
    around: { create: [authenticate('jwt'), validateBody({ create: templatePreviewDataSchema })] }
  })

  app.use(notificationTemplatePath, new NotificationTemplateService(app, deps), {
    methods: [...notificationTemplateMethods],
    events: []
  })

  defineAccess(app, notificationTemplatePath, {
    read: notificationConfigReadScope,
    write: notificationConfigWriteScope,
    create: (access, data) => checkNotificationManager(access, data.facility),
    audience: (doc) => [`organizations/${doc.facility}`],
    organizations: (doc) => [doc.facility]
  })

  app.service(notificationTemplatePath).hooks({
    around: {
      all: [
        authenticate('jwt'),
        externalView(app, notificationTemplatePath, notificationTemplateExternalResolver)
      ],
      find: [validateQueryWith(notificationTemplateQuerySchema), scopeAccess],
      get: [validateQueryWith(notificationTemplateQuerySchema), scopeAccess],
      create: [validateBody({ create: notificationTemplateDataSchema }), scopeAccess, setCreated],
      patch: [
        oneAtATime,
        validateQueryWith(notificationTemplateQuerySchema),
        scopeAccess,
        validateBody({ patch: notificationTemplatePatchSchema })
      ],
      remove: [oneAtATime, validateQueryWith(notificationTemplateQuerySchema), scopeAccess]
    }
  })
}
