// The medical-encounters service: a patient's visits to a facility. Its own create/patch/update/remove hold what a
// POST (optionally with its invoice), PATCH (changing or finalizing with the invoice), PUT and DELETE do.
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Static } from '@feathersjs/typebox'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import { ResourceService } from '../resource'
import type { CreatedFields } from '../../hooks/set-created'
import { accessOf } from '../../hooks/scope-access'
import { invalid } from '../../schema/validators'
import { actorOf, finalizeScope } from '../../billing/access'
import { removeEncounterCascade } from '../../billing/cascade'
import { faultPoint } from '../../billing/fault'
import { finalizeInvoice } from '../../billing/finalize'
import { createInvoiceRecord } from '../../billing/records'
import { errorCode, orNull } from '../../billing/store-calls'
import type { Encounter, encounterUpdateSchema } from './medical-encounters.schema'
import { billingInvoicePath } from '../billing-invoices/billing-invoices.shared'
import {
  medicalEncounterPath,
  type MedicalEncounterData,
  type MedicalEncounterPatch,
  type MedicalEncounterQuery
} from './medical-encounters.shared'

export const getOptions = (): StoreOptions => ({
  name: 'medical-encounters',
  indexes: [{ fields: { facility: 1 } }, { fields: { patient: 1 } }, { fields: { invoice: 1 } }]
})

type EncounterParams = StoreParams<MedicalEncounterQuery>
/** A PUT body: the create body without `invoice`. */
type EncounterReplacement = Static<typeof encounterUpdateSchema>

const replaceable = ['type', 'startedAt', 'endedAt', 'reason', 'notes', 'provider'] as const

export class MedicalEncounterService extends ResourceService<
  Stored<Encounter>,
  MedicalEncounterData,
  MedicalEncounterPatch,
  MedicalEncounterQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, medicalEncounterPath, getOptions())
  }

  // A draft encounter; with `invoice: true` also its draft invoice (removed again if the invoice cannot be made).
  async create(
    data: MedicalEncounterData & CreatedFields,
    params?: EncounterParams
  ): Promise<Stored<Encounter>> {
    return this.write('create', null, params, () => this.openEncounter(data))
  }

  private async openEncounter(data: MedicalEncounterData & CreatedFields): Promise<Stored<Encounter>> {
    const { deps } = this
    const settings = deps.settings.get('billing')
    const { encounters } = deps.stores
    const { invoice: withInvoice, ...fields } = data
    const now = deps.clock.now()
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
        invoice = await createInvoiceRecord(deps, {
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
      await deps.announce(billingInvoicePath, 'created', invoice)
    }
    return encounter
  }

  // Changes a draft encounter; with `finalize: true` finalizes it with its invoice and the invoice's items.
  async patch(
    id: NullableId,
    data: MedicalEncounterPatch,
    params: EncounterParams = {}
  ): Promise<Stored<Encounter>> {
    return this.write('patch', id, params, () => this.changeEncounter(id, data, params))
  }

  private async changeEncounter(
    id: NullableId,
    data: MedicalEncounterPatch,
    params: EncounterParams
  ): Promise<Stored<Encounter>> {
    const { deps } = this
    const { encounters, invoices } = deps.stores
    const existing: Stored<Encounter> = await this.loadExisting(id as Id, params)
    const { finalize, ...fields } = data
    const notDraft = () =>
      new Conflict(`Medical encounter ${existing.id} is finalized and can no longer be changed`, {
        encounter: existing.id
      })
    if (existing.status !== 'draft') throw notDraft()
    if (existing.deleting) throw new NotFound(`No medical encounter found for id '${existing.id}'`)
    const now = deps.clock.now()

    if (!finalize) {
      const updated = await orNull(
        encounters._patch(
          existing.id,
          { ...fields, updatedAt: now },
          { query: within({ status: 'draft', deleting: { $ne: true } }, params.writeScope) }
        )
      )
      if (!updated) throw notDraft()
      return updated
    }

    const scope = finalizeScope(
      params.provider ? await accessOf({ app: this.app, params }) : null,
      params.writeScope,
      existing.facility,
      deps.settings.get('billing').privilege,
      'Finalizing an encounter'
    )
    const by = actorOf(params)
    const invoice = existing.invoice ? await orNull(invoices._get(existing.invoice)) : null
    if (invoice && !invoice.deleting && invoice.status === 'draft') {
      // A concurrent finalize or delete of the invoice (409/404) leaves just the encounter to finalize below.
      const outcome = await finalizeInvoice(
        deps,
        invoice.id,
        by,
        { id: existing.id, fields },
        {},
        scope
      ).catch((error: unknown) => {
        if (errorCode(error) === 409 || errorCode(error) === 404) return null
        throw error
      })
      if (outcome) {
        await deps.announce(billingInvoicePath, 'patched', outcome.invoice)
        // Null when another call finalized the encounter meanwhile: everything is finalized all the same.
        return outcome.encounter ?? (await encounters._get(existing.id))
      }
    }
    const updated = await orNull(
      encounters._patch(
        existing.id,
        { ...fields, status: 'finalized', finalizedAt: now, finalizedBy: by, updatedAt: now },
        { query: within({ status: 'draft', deleting: { $ne: true } }, scope) }
      )
    )
    if (!updated) throw notDraft()
    return updated
  }

  // PUT: the body (validated like create, without `invoice`) replaces the draft encounter's client-owned fields;
  // fields left out are removed (`type` falls back to the default type, `startedAt` keeps its stored value);
  // `facility` and `patient` identify the encounter and cannot change (400); server-owned fields stay.
  async update(id: Id, data: EncounterReplacement, params: EncounterParams = {}): Promise<Stored<Encounter>> {
    return this.write('update', id, params, () => this.replaceEncounter(id, data, params))
  }

  private async replaceEncounter(
    id: Id,
    data: EncounterReplacement,
    params: EncounterParams
  ): Promise<Stored<Encounter>> {
    const { deps } = this
    const { encounters } = deps.stores
    const existing: Stored<Encounter> = await this.loadExisting(id, params)
    const unchangeable = (['facility', 'patient'] as const).filter((field) => data[field] !== existing[field])
    if (unchangeable.length)
      throw invalid(
        'data',
        unchangeable.map((field) => ({ field, message: 'cannot be changed' }))
      )
    const notDraft = () =>
      new Conflict(`Medical encounter ${existing.id} is finalized and can no longer be changed`, {
        encounter: existing.id
      })
    if (existing.status !== 'draft') throw notDraft()
    const set: Record<string, unknown> = {
      type: data.type ?? deps.settings.get('billing').encounterTypes[0],
      startedAt: data.startedAt ?? existing.startedAt,
      updatedAt: deps.clock.now()
    }
    const unset: Record<string, ''> = {}
    for (const field of replaceable) {
      if (data[field] !== undefined) set[field] = data[field]
      else if (field !== 'type' && field !== 'startedAt' && existing[field] !== undefined) unset[field] = ''
    }
    const changes = Object.keys(unset).length ? { ...set, $unset: unset } : set
    const updated = await orNull(
      encounters._patch(existing.id, changes, {
        query: within({ status: 'draft', deleting: { $ne: true } }, params.writeScope)
      })
    )
    if (!updated) {
      const fresh = await orNull(encounters._get(existing.id))
      if (!fresh || fresh.deleting) throw new NotFound(`No medical encounter found for id '${existing.id}'`)
      throw notDraft()
    }
    return updated
  }

  // DELETE: the draft encounter with its draft invoice, items and payments (src/billing/cascade.ts).
  async remove(id: NullableId, params: EncounterParams = {}): Promise<Stored<Encounter>> {
    return this.write('remove', id, params, () =>
      removeEncounterCascade(this.deps, params.existing?.id ?? (id as string), { scope: params.writeScope })
    )
  }
}
