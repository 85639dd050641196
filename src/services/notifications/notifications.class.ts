// The notifications log: read through the service; written by the server only (src/notifications/queue.ts queues a
// notification, the delivery worker records each attempt), each write announced like a service call's.
import { MethodNotAllowed } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, Stored } from '../../store'
import { ResourceService } from '../resource'
import type { Notification } from './notifications.schema'
import { notificationPath, type NotificationQuery } from './notifications.shared'

export const getOptions = (): StoreOptions => ({
  name: 'notifications',
  // The channels of one message are written in one call (internal only: clients never write the log).
  multi: true,
  indexes: [
    // Once per recipient, channel and subject: a second queueing of the same message is refused by the store.
    { fields: { dedupeKey: 1 }, unique: true },
    // The delivery worker's look for due messages.
    { fields: { status: 1, nextAttemptAt: 1 } },
    { fields: { facility: 1, createdAt: -1 } },
    { fields: { recipient: 1, createdAt: -1 } },
    { fields: { 'ref.id': 1 } }
  ]
})

export class NotificationService extends ResourceService<
  Stored<Notification>,
  never,
  never,
  NotificationQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, notificationPath, getOptions())
  }

  async create(): Promise<Stored<Notification>> {
    throw new MethodNotAllowed('Notifications are written by the server')
  }
}
