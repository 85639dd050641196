// Patients: a facility's patients, for its staff to find the person in front of them. GET
// /patients?facility=…&q=… answers the facility's patients whose name, email or phone starts with `q` (any case;
// `facility` required; paginated); POST { facility, firstName, lastName?, email, mobileNo? } registers one (the
// account with that email, else a new one without a password that the person claims with a mailed code: sendClaimCode). Who is a
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
import { backfillPatientLinks, PATIENT_LINKS_BACKFILL, type MigrationMarker } from '../../patients/backfill'
import { createStore } from '../../store'
import { withLease } from '../../cluster/lease'
import { appSlot } from '../../runtime'
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

  // Which one-time migrations are done (internal: no service path).
  const markers = createStore<MigrationMarker>(app, {
    name: 'migrations',
    indexes: [{ fields: { name: 1 }, unique: true }],
    multi: false,
    paginate: false
  })
  backfillSlot.set(app, { markers, stopping: false, running: null })
}

interface BackfillState {
  markers: ReturnType<typeof createStore<MigrationMarker>>
  stopping: boolean
  running: Promise<void> | null
}
const backfillSlot = appSlot<BackfillState>('patient links backfill')

// How long the backfill's lease outlives a crashed instance (renewed while it runs).
const BACKFILL_LEASE_MS = 60_000

/**
 * Starts the patient links of earlier records in the background (src/patients/backfill.ts): start-up does not
 * wait for it. With several instances one holds the lease and runs it; the others skip it.
 */
export const startPatientLinksBackfill = (app: Application, deps: Deps) => {
  const state = backfillSlot.get(app)
  if (!state) return
  state.stopping = false
  state.running = withLease(app, PATIENT_LINKS_BACKFILL, BACKFILL_LEASE_MS, () =>
    backfillPatientLinks(deps, state.markers, () => state.stopping)
  ).then(
    () => undefined,
    (error: unknown) =>
      deps.logger.error('The patient links backfill failed (it runs again at the next start):', error)
  )
}

/** Ends a backfill under way at its next batch (it stays unmarked, so the next start finishes it). */
export const stopPatientLinksBackfill = async (app: Application) => {
  const state = backfillSlot.get(app)
  if (!state) return
  state.stopping = true
  await state.running
  state.running = null
}

/** The store of done one-time migrations (tests simulate an older data folder by clearing a marker). */
export const migrationMarkers = (app: Application) => backfillSlot.get(app)?.markers

/** Settles once the backfill started by this app has finished (tests, tools). */
export const patientLinksBackfillDone = async (app: Application) => {
  await backfillSlot.get(app)?.running
}
