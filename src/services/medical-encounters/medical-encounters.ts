// Medical encounters: a patient's visit at a facility. `invoice: true` on create also creates the
// encounter's draft invoice; PATCH {finalize: true} finalizes the encounter, its invoice and every item of
// the invoice, all or nothing (src/billing/finalize.ts); PUT replaces a draft encounter's client-owned fields;
// DELETE removes a draft encounter with its draft invoice, the invoice's items and their payments, durably
// (src/billing/cascade.ts). Members of the facility read, create, change and replace encounters and remove
// those without an invoice; finalizing, and removing an encounter that has an invoice (which removes money
// records), need the billing privilege or superadmin, as removing an invoice does.
import { authenticate } from '@feathersjs/authentication'
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import { defineAccess, within } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { invalid, validateBody, validateQueryWith } from '../../schema/validators'
import { billingScope, facilityOwned, facilityScope, requireMember } from '../../billing/access'
import { removeEncounterCascade } from '../../billing/cascade'
import { faultPoint } from '../../billing/fault'
import { finalizeInvoice } from '../../billing/finalize'
import { actorOf, finalizeScope, oneAtATime } from '../../billing/hooks'
import { emitChange, presentResults } from '../../billing/present'
import { createInvoiceRecord } from '../../billing/records'
import { billingSettings } from '../../billing/settings'
import { orNull, paths, stores } from '../../billing/stores'
import { checkBillingValues } from '../../billing/validate'
import { createEncounterService, type MedicalEncounterService } from './medical-encounters.class'
import { encounterDataSchema, encounterPatchSchema, encounterQuerySchema, encounterUpdateSchema } from './medical-encounters.schema'
import { medicalEncounterMethods, medicalEncounterPath } from './medical-encounters.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [medicalEncounterPath]: MedicalEncounterService
  }
}

// Creates the encounter and, with `invoice: true`, its draft invoice (subject: the patient); if the invoice
// cannot be created the encounter is removed again.
const createEncounter = async (context: HookContext, next: NextFunction) => {
  const { app } = context
  const settings = billingSettings(app)
  const { encounters } = stores(app)
  const { invoice: withInvoice, ...fields } = context.data
  const now = Date.now()
  let encounter = await encounters._create({
    ...fields,
    type: fields.type ?? settings.encounterTypes[0],
    startedAt: fields.startedAt ?? now,
    invoice: null,
    status: 'draft',
    finalizedAt: null,
    finalizedBy: null,
    updatedAt: now
  })
  if (withInvoice) {
    let invoice
    try {
      invoice = await createInvoiceRecord(app, {
        facility: encounter.facility,
        type: settings.encounterInvoiceType,
        subject: encounter.patient,
        subjectType: 'patient',
        encounter: encounter.id,
        createdAt: fields.createdAt,
        createdBy: fields.createdBy
      })
    } catch (error) {
      await encounters._remove(encounter.id)
      throw error
    }
    faultPoint('encounter:invoice-created')
    encounter = await encounters._patch(encounter.id, { invoice: invoice.id })
    await emitChange(app, paths.invoices, 'created', invoice)
  }
  context.result = encounter
  await next()
}

// Changes a draft encounter; with `finalize: true` finalizes it with its invoice and the invoice's items.
const patchEncounter = async (context: HookContext, next: NextFunction) => {
  const { app } = context
  const { encounters, invoices } = stores(app)
  const existing = context.params.existing ?? (await encounters._get(context.id as string))
  const { finalize, ...fields } = context.data
  const notDraft = () => new Conflict(`Medical encounter ${existing.id} is finalized and can no longer be changed`, { encounter: existing.id })
  if (existing.status !== 'draft') throw notDraft()
  if (existing.deleting) throw new NotFound(`No medical encounter found for id '${existing.id}'`)
  const now = Date.now()

  if (!finalize) {
    const updated = await orNull(encounters._patch(existing.id, { ...fields, updatedAt: now }, { query: within({ status: 'draft', deleting: { $ne: true } }, context.params.writeScope) }))
    if (!updated) throw notDraft()
    context.result = updated
    return next()
  }

  const scope = await finalizeScope(context, existing, 'Finalizing an encounter')
  const by = actorOf(context)
  const invoice = existing.invoice ? await orNull(invoices._get(existing.invoice)) : null
  if (invoice && !invoice.deleting && invoice.status === 'draft') {
    // A concurrent finalize or delete of the invoice (409/404) leaves just the encounter to finalize below.
    const outcome = await finalizeInvoice(app, invoice.id, by, { id: existing.id, fields }, {}, scope).catch((error) => {
      if (error?.code === 409 || error?.code === 404) return null
      throw error
    })
    if (outcome) {
      await emitChange(app, paths.invoices, 'patched', outcome.invoice)
      // Null when another call finalized the encounter meanwhile: everything is finalized all the same.
      context.result = outcome.encounter ?? (await encounters._get(existing.id))
      return next()
    }
  }
  const updated = await orNull(
    encounters._patch(existing.id, { ...fields, status: 'finalized', finalizedAt: now, finalizedBy: by, updatedAt: now }, { query: within({ status: 'draft', deleting: { $ne: true } }, scope) })
  )
  if (!updated) throw notDraft()
  context.result = updated
  await next()
}

const replaceable = ['type', 'startedAt', 'endedAt', 'reason', 'notes', 'provider'] as const

// PUT: the body (validated like create, without `invoice`) replaces the draft encounter's client-owned fields;
// fields left out are removed (`type` falls back to the default type, `startedAt` keeps its stored value);
// `facility` and `patient` identify the encounter and cannot change (400); server-owned fields stay.
const updateEncounter = async (context: HookContext, next: NextFunction) => {
  const { app } = context
  const { encounters } = stores(app)
  const existing = context.params.existing ?? (await encounters._get(context.id as string))
  const data = context.data
  const unchangeable = (['facility', 'patient'] as const).filter((field) => data[field] !== existing[field])
  if (unchangeable.length) throw invalid('data', unchangeable.map((field) => ({ field, message: 'cannot be changed' })))
  const notDraft = () => new Conflict(`Medical encounter ${existing.id} is finalized and can no longer be changed`, { encounter: existing.id })
  if (existing.status !== 'draft') throw notDraft()
  const set: Record<string, unknown> = { type: data.type ?? billingSettings(app).encounterTypes[0], startedAt: data.startedAt ?? existing.startedAt, updatedAt: Date.now() }
  const unset: Record<string, ''> = {}
  for (const field of replaceable) {
    if (data[field] !== undefined) set[field] = data[field]
    else if (field !== 'type' && field !== 'startedAt' && existing[field] !== undefined) unset[field] = ''
  }
  const changes = Object.keys(unset).length ? { ...set, $unset: unset } : set
  const updated = await orNull(encounters._patch(existing.id, changes, { query: within({ status: 'draft', deleting: { $ne: true } }, context.params.writeScope) }))
  if (!updated) {
    const fresh = await orNull(encounters._get(existing.id))
    if (!fresh || fresh.deleting) throw new NotFound(`No medical encounter found for id '${existing.id}'`)
    throw notDraft()
  }
  context.result = updated
  await next()
}

// DELETE: the draft encounter with its draft invoice, items and payments (src/billing/cascade.ts).
const removeEncounter = async (context: HookContext, next: NextFunction) => {
  context.result = await removeEncounterCascade(context.app, context.params.existing?.id ?? (context.id as string), { scope: context.params.writeScope })
  await next()
}

export const medicalEncounters = (app: Application) => {
  app.use(medicalEncounterPath, createEncounterService(app), { methods: [...medicalEncounterMethods], events: [] })
  app.service(medicalEncounterPath).populatable = true

  defineAccess(medicalEncounterPath, {
    // An encounter being removed (`deleting`) is already gone for clients.
    read: (access) => ({ ...facilityScope(access), deleting: { $ne: true } }),
    // Members change and remove encounters; removing one with an invoice removes money records, which needs
    // the billing privilege (or superadmin), as removing the invoice itself does.
    write: (access, method) =>
      method === 'remove' ? { $or: [{ ...facilityScope(access), invoice: null }, billingScope(access, billingSettings(app).privilege)] } : facilityScope(access),
    // Members of the facility record its encounters.
    create: (access, data) => requireMember(access, data.facility),
    ...facilityOwned,
    // Patient data: every external call is in the audit trail (README "Audit trail").
    audit: { patient: (doc) => doc.patient, facility: (doc) => doc.facility }
  })

  app.service(medicalEncounterPath).hooks({
    around: {
      all: [authenticate('jwt'), presentResults(medicalEncounterPath)],
      find: [validateQueryWith(encounterQuerySchema), scopeAccess],
      get: [validateQueryWith(encounterQuerySchema), scopeAccess],
      create: [validateBody({ create: encounterDataSchema }), checkBillingValues({ type: 'encounterTypes' }), scopeAccess, setCreated, createEncounter],
      patch: [oneAtATime, validateQueryWith(encounterQuerySchema), scopeAccess, validateBody({ patch: encounterPatchSchema }), checkBillingValues({ type: 'encounterTypes' }), patchEncounter],
      update: [validateQueryWith(encounterQuerySchema), scopeAccess, validateBody({ update: encounterUpdateSchema }), checkBillingValues({ type: 'encounterTypes' }), updateEncounter],
      remove: [oneAtATime, validateQueryWith(encounterQuerySchema), scopeAccess, removeEncounter]
    }
  })
}
