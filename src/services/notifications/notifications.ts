// Notifications: the log of every message the server sent (or skipped) to patients — appointment changes and
// reminders, queue calls, finalized records and invoices — by email and SMS. Read-only for clients: the
// facility's superadmins and members holding the `notifications` privilege read their facility's; a patient reads
// their own; nobody else reads any. Realtime `created`/`patched` go to those readers. The messages themselves
// (subject, body) never leave the server: the log is metadata (event, channel, masked address, status).
import { authenticate } from '@feathersjs/authentication'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { validateQueryWith } from '../../schema/validators'
import { externalView } from '../../schema/external'
import { notificationReadScope } from '../../notifications/access'
import { notificationTriggers } from '../../notifications/triggers'
import { NotificationService } from './notifications.class'
import { notificationExternalResolver, notificationQuerySchema } from './notifications.schema'
import { notificationMethods, notificationPath } from './notifications.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [notificationPath]: NotificationService
  }
}

export const notifications = (app: Application, deps: Deps) => {
  app.use(notificationPath, new NotificationService(app, deps), {
    methods: [...notificationMethods],
    events: []
  })

  defineAccess(app, notificationPath, {
    read: notificationReadScope,
    create: () => {
      throw new Error('Notifications are written by the server')
    },
    audience: (doc) => [`organizations/${doc.facility}`, `accounts/${doc.recipient}`],
    organizations: (doc) => [doc.facility],
    // About a patient (who was told what, when): every external read is in the audit trail.
    audit: {
      fields: ['recipient', 'facility'],
      patient: (doc) => doc.recipient,
      facility: (doc) => doc.facility
    }
  })

  app.service(notificationPath).hooks({
    around: {
      all: [authenticate('jwt'), externalView(app, notificationPath, notificationExternalResolver)],
      find: [validateQueryWith(notificationQuerySchema), scopeAccess],
      get: [validateQueryWith(notificationQuerySchema), scopeAccess]
    }
  })

  // The events that notify patients (appointments, queue items, finalized records and invoices), queued before
  // the write that caused them answers (src/notifications/triggers.ts).
  notificationTriggers(app, deps)
}
