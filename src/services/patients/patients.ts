// Patients: a facility's patients, for its staff to find the person in front of them. GET
// /patients?facility=…&q=… answers the facility's patients whose name, email or phone starts with `q` (any case;
// `facility` required; paginated); POST { facility, firstName, lastName?, email, mobileNo? } registers one (the
// account with that email, else a new one without a password that the person claims by resetting it). Who is a
// facility's patient, and how links follow accounts: src/patients/links.ts; who may do what: src/patients/access.ts.
// Patient data: every external call is in the audit trail; realtime events go to the facility's members only.
import { authenticate } from '@feathersjs/authentication'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { requireSubscription } from '../../hooks/require-subscription'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { externalView } from '../../schema/external'
import { checkPatientCreate, patientReadScope } from '../../patients/access'
import { followPatientLinks } from '../../patients/links'
import { PatientService } from './patients.class'
import {
  patientDataSchema,
  patientExternalResolver,
  patientGetQuerySchema,
  patientQuerySchema
} from './patients.schema'
import { patientMethods, patientPath } from './patients.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [patientPath]: PatientService
  }
}

export const patients = (app: Application, deps: Deps) => {
  app.use(patientPath, new PatientService(app, deps), { methods: [...patientMethods], events: [] })

  defineAccess(app, patientPath, {
    read: patientReadScope,
    create: checkPatientCreate,
    audience: (doc) => [`organizations/${doc.facility}`],
    organizations: (doc) => [doc.facility],
    audit: { fields: ['patient', 'facility'], patient: (doc) => doc.patient, facility: (doc) => doc.facility }
  })

  app.service(patientPath).hooks({
    around: {
      all: [authenticate('jwt'), externalView(app, patientPath, patientExternalResolver)],
      find: [validateQueryWith(patientQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(patientGetQuerySchema), scopeAccess, requireSubscription],
      create: [validateBody({ create: patientDataSchema }), scopeAccess, requireSubscription, setCreated]
    }
  })

  // Records, encounters and appointments created for someone at a facility make them its patient.
  deps.events.on('record.changed', followPatientLinks(deps))
}
