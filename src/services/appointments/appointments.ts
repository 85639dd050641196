// Appointments: a patient's booking of a provider's free slot (src/appointments/book.ts). POST { facility,
// provider, patient, start, reason?, type? } → end = start + the schedule's slotMinutes, status `scheduled`.
// `start` off the grid or outside the schedule is a 400 naming `start`; a taken slot a 409, decided by a unique
// slot key (twenty simultaneous bookings: one 201). Staff (superadmins and schedulers of the facility, the
// provider) book for any patient; a patient books for themself when the schedule is open to patients (403
// otherwise); a plain member gets 403, everyone else 404. Staff, the provider and the patient read them.
// Patient data: every external call is in the audit trail.
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
import { appointmentScope, checkAppointmentCreate } from '../../appointments/book'
import { AppointmentService } from './appointments.class'
import {
  appointmentDataSchema,
  appointmentExternalResolver,
  appointmentPatchSchema,
  appointmentQuerySchema
} from './appointments.schema'
import { appointmentMethods, appointmentPath } from './appointments.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [appointmentPath]: AppointmentService
  }
}

export const appointments = (app: Application, deps: Deps) => {
  app.use(appointmentPath, new AppointmentService(app, deps), {
    methods: [...appointmentMethods],
    events: []
  })

  defineAccess(app, appointmentPath, {
    read: appointmentScope,
    write: appointmentScope,
    create: checkAppointmentCreate,
    audience: (doc) => [
      `organizations/${doc.facility}`,
      `accounts/${doc.provider}`,
      `accounts/${doc.patient}`
    ],
    organizations: (doc) => [doc.facility],
    audit: { fields: ['patient', 'facility'], patient: (doc) => doc.patient, facility: (doc) => doc.facility }
  })

  app.service(appointmentPath).hooks({
    around: {
      all: [
        populate,
        authenticate('jwt'),
        partyNames(deps),
        externalView(app, appointmentPath, appointmentExternalResolver)
      ],
      find: [validateQueryWith(appointmentQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(appointmentQuerySchema), scopeAccess, requireSubscription],
      create: [validateBody({ create: appointmentDataSchema }), scopeAccess, requireSubscription, setCreated],
      patch: [
        oneAtATime,
        validateQueryWith(appointmentQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: appointmentPatchSchema })
      ]
    }
  })
}
