// Schedules: a provider's weekly windows at a facility, in the facility's time zone, with exceptions, from which
// /appointment-slots computes free slots. Superadmins of the facility, members holding the `scheduling` privilege
// and the provider (for their own schedule) create and change them; the facility's members read them, and any
// signed-in account reads an active schedule open to patient self-booking (`booking: "patients"`); everyone else
// gets 404. Overlapping windows, an end not after its start, an unknown time zone and a provider who is not a
// member are 400s naming the field (src/appointments/schedules.ts).
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
import { partyNames } from '../../hooks/party-names'
import { omittingResolver } from '../../schema/resolvers'
import { checkScheduleCreate, scheduleReadScope, scheduleWriteScope } from '../../appointments/schedules'
import { ScheduleService } from './schedules.class'
import {
  scheduleDataSchema,
  schedulePatchSchema,
  scheduleQuerySchema,
  type Schedule
} from './schedules.schema'
import { scheduleMethods, schedulePath } from './schedules.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [schedulePath]: ScheduleService
  }
}

export const schedules = (app: Application, deps: Deps) => {
  app.use(schedulePath, new ScheduleService(app, deps), { methods: [...scheduleMethods], events: [] })

  defineAccess(app, schedulePath, {
    read: scheduleReadScope,
    write: scheduleWriteScope,
    create: checkScheduleCreate,
    audience: (doc) => [`organizations/${doc.facility}`, `accounts/${doc.provider}`],
    organizations: (doc) => [doc.facility]
  })

  app.service(schedulePath).hooks({
    around: {
      all: [
        populate,
        authenticate('jwt'),
        partyNames(deps),
        externalView(app, schedulePath, omittingResolver<Schedule>([]))
      ],
      find: [validateQueryWith(scheduleQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(scheduleQuerySchema), scopeAccess, requireSubscription],
      create: [validateBody({ create: scheduleDataSchema }), scopeAccess, requireSubscription, setCreated],
      patch: [
        oneAtATime,
        validateQueryWith(scheduleQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: schedulePatchSchema })
      ],
      remove: [oneAtATime, validateQueryWith(scheduleQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
