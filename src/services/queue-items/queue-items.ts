// Queue items: a patient's ticket in a queue, `{ queue, patient, appointment?, number, status, position }` with
// the facility copied from the queue (src/queues/items.ts). Staff of the facility (superadmins, the `scheduling`
// privilege) create them (`number`: the queue's next ticket of the facility's local day) and move their status;
// an item is also issued when an appointment is checked in at a facility with an active default queue
// (src/queues/check-in.ts, subscribed here). Read by the staff and by the item's patient, who may also cancel
// their own waiting item; everyone else gets 404 (an empty list). `position` is computed at read and kept current
// live (src/services/queue-items/positions.ts). Patient data: every external call is in the audit trail.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { externalView } from '../../schema/external'
import { checkQueueItemCreate, queueItemScope } from '../../queues/access'
import { onAppointmentChanged } from '../../queues/check-in'
import { QueueItemService } from './queue-items.class'
import { queueItemDataSchema, queueItemPatchSchema, queueItemQuerySchema } from './queue-items.schema'
import { queueItemMethods, queueItemPath } from './queue-items.shared'
import { queueItemExternalResolver } from './positions'

declare module '../../declarations' {
  interface ServiceTypes {
    [queueItemPath]: QueueItemService
  }
}

export const queueItems = (app: Application, deps: Deps) => {
  app.use(queueItemPath, new QueueItemService(app, deps), { methods: [...queueItemMethods], events: [] })

  defineAccess(app, queueItemPath, {
    read: queueItemScope,
    write: queueItemScope,
    create: (access, data) => checkQueueItemCreate(deps, access, data),
    // The item's patient and the facility's staff (other patients never: the read rule filters each connection).
    audience: (doc) => [`organizations/${doc.facility}`, `accounts/${doc.patient}`],
    organizations: (doc) => [doc.facility],
    audit: { fields: ['patient', 'facility'], patient: (doc) => doc.patient, facility: (doc) => doc.facility }
  })

  app.service(queueItemPath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, queueItemPath, queueItemExternalResolver(deps))],
      find: [validateQueryWith(queueItemQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(queueItemQuerySchema), scopeAccess, requireSubscription],
      create: [validateBody({ create: queueItemDataSchema }), scopeAccess, requireSubscription, setCreated],
      patch: [
        oneAtATime,
        validateQueryWith(queueItemQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: queueItemPatchSchema })
      ]
    }
  })

  // An appointment checked in joins its facility's default queue.
  deps.events.on('record.changed', (change) => onAppointmentChanged(deps, change))
}
