// GET /appointment-slots?facility=&provider=&from=<ms>&to=<ms>: the free slots of a facility's active schedules
// (one provider's, or every provider's) in a range of at most 31 days, by ascending start, paginated like every
// list. Members of the facility see every schedule's slots; any other signed-in account those of schedules open to
// patient self-booking. Only `find` exists: computed, never stored.
import { authenticate } from '@feathersjs/authentication'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { validateQueryWith } from '../../schema/validators'
import { AppointmentSlotService } from './appointment-slots.class'
import { slotQuerySchema } from './appointment-slots.schema'
import { appointmentSlotMethods, appointmentSlotPath } from './appointment-slots.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [appointmentSlotPath]: AppointmentSlotService
  }
}

export const appointmentSlots = (app: Application, deps: Deps) => {
  app.use(appointmentSlotPath, new AppointmentSlotService(app, deps), {
    methods: [...appointmentSlotMethods],
    events: []
  })
  app.service(appointmentSlotPath).hooks({
    around: { find: [authenticate('jwt'), validateQueryWith(slotQuerySchema)] }
  })
}
