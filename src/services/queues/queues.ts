// Queues: a facility's waiting rooms, `{ facility, name, active (default true), default (default false) }`, plus
// the ticket counter (src/queues/tickets.ts). The facility's superadmins and members holding the `scheduling`
// privilege create and change them (a plain member 403, a stranger 404); the facility's members read them. At
// most one queue per facility is its default (where check-ins go): a second is a 409 naming `default` and the
// current one. Queues are retired with `active: false`, never removed. `PATCH { $callNext: true }` calls the
// lowest waiting number and answers that queue item: since that answer is patient data, calls to /queues are in
// the audit trail (with the patient when the answer is an item), and such a call emits no queue event (the item's
// own `patched` goes to its readers, src/services/queue-items/positions.ts).
import { authenticate } from '@feathersjs/authentication'
import type { HookContext, NextFunction } from '@feathersjs/feathers'
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
import { checkQueueCreate, queueReadScope, queueWriteScope } from '../../queues/access'
import { QueueService } from './queues.class'
import { queueDataSchema, queueExternalResolver, queuePatchSchema, queueQuerySchema } from './queues.schema'
import { queueMethods, queuePath } from './queues.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [queuePath]: QueueService
  }
}

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)

/** A `$callNext` patch answers a queue item, announced on /queue-items: no `patched` event of /queues for it. */
const noQueueEventForCallNext = async (context: HookContext, next: NextFunction) => {
  await next()
  const operators: unknown = context.params.operators
  if (operators && typeof operators === 'object' && '$callNext' in operators) context.event = null
}

export const queues = (app: Application, deps: Deps) => {
  app.use(queuePath, new QueueService(app, deps), { methods: [...queueMethods], events: [] })

  defineAccess(app, queuePath, {
    read: queueReadScope,
    write: queueWriteScope,
    create: checkQueueCreate,
    audience: (doc) => [`organizations/${doc.facility}`],
    organizations: (doc) => [doc.facility],
    // A queue carries no patient; the item a `$callNext` answers does.
    audit: { fields: ['facility'], patient: (doc) => str(doc.patient), facility: (doc) => doc.facility }
  })

  app.service(queuePath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, queuePath, queueExternalResolver)],
      find: [validateQueryWith(queueQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(queueQuerySchema), scopeAccess, requireSubscription],
      create: [validateBody({ create: queueDataSchema }), scopeAccess, requireSubscription, setCreated],
      patch: [
        noQueueEventForCallNext,
        oneAtATime,
        validateQueryWith(queueQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: queuePatchSchema })
      ]
    }
  })
}
