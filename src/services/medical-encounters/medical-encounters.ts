// Medical encounters: a patient's visit at a facility. `invoice: true` on create also creates the
// encounter's draft invoice; PATCH {finalize: true} finalizes the encounter, its invoice and every item of
// the invoice, all or nothing (src/billing/finalize.ts); PUT replaces a draft encounter's client-owned fields;
// DELETE removes a draft encounter with its draft invoice, the invoice's items and their payments, durably
// (src/billing/cascade.ts). Members of the facility read, create, change and replace encounters and remove
// those without an invoice; finalizing, and removing an encounter that has an invoice (which removes money
// records), need the billing privilege or superadmin, as removing an invoice does.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { billingScope, facilityOwned, facilityScope, requireMember } from '../../billing/access'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { externalView } from '../../schema/external'
import { checkBillingValues } from '../../hooks/check-billing-values'
import { MedicalEncounterService } from './medical-encounters.class'
import {
  encounterDataSchema,
  encounterExternalResolver,
  encounterPatchSchema,
  encounterQuerySchema,
  encounterUpdateSchema
} from './medical-encounters.schema'
import { medicalEncounterMethods, medicalEncounterPath } from './medical-encounters.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [medicalEncounterPath]: MedicalEncounterService
  }
}

// Creates the encounter and, with `invoice: true`, its draft invoice (subject: the patient); if the invoice
// cannot be created the encounter is removed again.
export const medicalEncounters = (app: Application, deps: Deps) => {
  app.use(medicalEncounterPath, new MedicalEncounterService(app, deps), {
    methods: [...medicalEncounterMethods],
    events: []
  })
  app.service(medicalEncounterPath).populatable = true

  defineAccess(app, medicalEncounterPath, {
    // An encounter being removed (`deleting`) is already gone for clients.
    read: (access) => ({ ...facilityScope(access), deleting: { $ne: true } }),
    // Members change and remove encounters; removing one with an invoice removes money records, which needs
    // the billing privilege (or superadmin), as removing the invoice itself does.
    write: (access, method) =>
      method === 'remove'
        ? {
            $or: [
              { ...facilityScope(access), invoice: null },
              billingScope(access, deps.settings.get('billing').privilege)
            ]
          }
        : facilityScope(access),
    // Members of the facility record its encounters.
    create: (access, data) => requireMember(access, data.facility),
    ...facilityOwned,
    // Patient data: every external call is in the audit trail (docs/audit-trail.md).
    audit: { fields: ['patient', 'facility'], patient: (doc) => doc.patient, facility: (doc) => doc.facility }
  })

  app.service(medicalEncounterPath).hooks({
    around: {
      all: [
        populate,
        authenticate('jwt'),
        externalView(app, medicalEncounterPath, encounterExternalResolver)
      ],
      find: [validateQueryWith(encounterQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(encounterQuerySchema), scopeAccess, requireSubscription],
      create: [
        validateBody({ create: encounterDataSchema }),
        checkBillingValues({ type: 'encounterTypes' }),
        scopeAccess,
        requireSubscription,
        setCreated
      ],
      patch: [
        oneAtATime,
        validateQueryWith(encounterQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: encounterPatchSchema }),
        checkBillingValues({ type: 'encounterTypes' })
      ],
      update: [
        validateQueryWith(encounterQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ update: encounterUpdateSchema }),
        checkBillingValues({ type: 'encounterTypes' })
      ],
      remove: [oneAtATime, validateQueryWith(encounterQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
