// The medical-records service: what a PATCH and a DELETE do (a record's rights per body, finalized records frozen
// except for their permissions, the server's stamps), and the store's options: indexes for the permission query
// and the usual filters.
import { Forbidden, NotAuthenticated } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import { invalid, WHOLE_BODY } from '../../schema/validators'
import { ResourceService } from '../resource'
import { finalizedConflict, isFinalized, removeRecordCascade } from '../../attachments/records'
import { validatePatch, type MedicalRecord, type Permission } from './medical-records.schema'
import {
  holds,
  normalizePermissions,
  recordQuery,
  requireFacilityMembership
} from '../../access/medical-records'
import {
  medicalRecordPath,
  type MedicalRecordData,
  type MedicalRecordPatch,
  type MedicalRecordQuery
} from './medical-records.shared'

export const getOptions = (deps: Pick<Deps, 'settings'>): StoreOptions => ({
  name: 'medical-records',
  indexes: [
    // One per branch of the permission query (src/access/medical-records.ts), each usable for a newest-first page.
    { fields: { createdBy: 1, createdAt: -1 } },
    { fields: { 'permissions.uid': 1, createdAt: -1 } },
    { fields: { 'permissions.organization': 1, createdAt: -1 } },
    // The documented list filters.
    { fields: { patient: 1, createdAt: -1 } },
    { fields: { facility: 1, createdAt: -1 } },
    { fields: { encounter: 1, createdAt: -1 } },
    { fields: { account: 1, createdAt: -1 } }
  ],
  // The permission query needs these (nested in `$and`/`$or`); clients cannot send them: the query schema refuses them.
  operators: ['$or', '$elemMatch', '$size', '$exists'],
  paginate: deps.settings.get('medicalRecords').paginate
})

type RecordParams = StoreParams<MedicalRecordQuery>
type StoredRecord = Stored<MedicalRecord>

export class MedicalRecordService extends ResourceService<
  StoredRecord,
  MedicalRecordData,
  MedicalRecordPatch,
  MedicalRecordQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, medicalRecordPath, getOptions(deps))
  }

  /**
   * A patch (by id: the hooks refuse multi patches) is validated with the stored record's type schema (`type`
   * cannot change). Changing `permissions` needs share rights, anything else (fields, finalize, done) write rights;
   * a finalized record only takes permission changes. Sets the server stamps: finalizedAt/By, and for ape-reports
   * classifiedAt/By and doneAt/By.
   */
  async patch(id: NullableId, data: MedicalRecordPatch, params: RecordParams = {}): Promise<StoredRecord> {
    const existing: StoredRecord = await this.loadExisting(id as Id, params)
    const { value, errors } = validatePatch(existing.type, data)
    if (errors) throw invalid('data', errors)
    const keys = Object.keys(value)
    if (keys.length === 0)
      throw invalid('data', [{ field: WHOLE_BODY, message: 'must name at least one field to change' }])
    const sharing = keys.includes('permissions')
    const writing = keys.some((key) => key !== 'permissions')

    let query = params.query
    if (params.provider) {
      if (!params.account) throw new NotAuthenticated('Not authenticated')
      const access = params.access ?? (await this.deps.access.load(params.account))
      if (sharing && !holds(access, 'share', existing))
        throw new Forbidden('You may not change who this medical record is shared with')
      if (writing && !holds(access, 'write', existing))
        throw new Forbidden('You may not change this medical record')
      if (typeof value.facility === 'string' && value.facility !== existing.facility)
        requireFacilityMembership(access, value.facility)
      // The store write carries exactly the grants this body needs (the write scope allows write or share).
      query = within(
        query,
        sharing ? recordQuery(access, 'share') : null,
        writing ? recordQuery(access, 'write') : null
      ) as MedicalRecordQuery
    }
    if (writing && isFinalized(existing)) throw finalizedConflict(existing)

    const { finalize, done, ...fields } = value
    const changes: Record<string, unknown> = { ...fields }
    const now = this.deps.clock.now()
    const by = params.account?.id ?? null
    if (sharing) changes.permissions = normalizePermissions(value.permissions as Permission[] | undefined)
    if (finalize) Object.assign(changes, { finalizedAt: now, finalizedBy: by })
    if (existing.type === 'ape-report') {
      if (fields.classification !== undefined && fields.classification !== existing.classification) {
        Object.assign(changes, { classifiedAt: now, classifiedBy: by })
      }
      if (done && existing.doneAt === undefined) Object.assign(changes, { doneAt: now, doneBy: by })
    }

    // Nothing to store (e.g. `done` on a report already done): the answer is the record as it is.
    if (Object.keys(changes).length === 0) return this.write('patch', id, params, async () => existing)
    // (the body as validated, with the server's stamps)
    const store = (p: RecordParams) => this.store.patch(id, changes as MedicalRecordPatch, p)
    return this.write('patch', id, params, () =>
      writing
        ? this.unlessFinalizedMeanwhile(existing, { ...params, query }, store)
        : store({ ...params, query })
    )
  }

  /** A finalized record cannot be removed; removing one removes its files and their bytes, durably
   *  (src/attachments/records.ts). */
  async remove(id: NullableId, params: RecordParams = {}): Promise<StoredRecord> {
    const existing: StoredRecord = await this.loadExisting(id as Id, params)
    if (isFinalized(existing)) throw finalizedConflict(existing)
    return this.write('remove', id, params, () =>
      removeRecordCascade(this.deps, existing.id, { scope: params.writeScope })
    )
  }

  // Keeps the store call conditional on the record not being finalized meanwhile (a concurrent finalize wins: 409).
  private async unlessFinalizedMeanwhile(
    existing: { id: string },
    params: RecordParams,
    run: (params: RecordParams) => Promise<StoredRecord>
  ): Promise<StoredRecord> {
    try {
      return await run({
        ...params,
        query: within(params.query, { finalizedAt: { $exists: false } }) as MedicalRecordQuery
      })
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 404) {
        const now = await this._get(existing.id).catch(() => null)
        if (now && isFinalized(now)) throw finalizedConflict(now)
      }
      throw error
    }
  }
}
