// The medical-records service: the store's typed adapter (its writes announced by ResourceService) and its
// options: indexes for the permission query and the usual filters.
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, Stored } from '../../store'
import { ResourceService } from '../resource'
import type { MedicalRecord } from './medical-records.schema'
import {
  medicalRecordPath,
  type MedicalRecordData,
  type MedicalRecordPatch,
  type MedicalRecordQuery
} from './medical-records.shared'

export const getOptions = (deps: Pick<Deps, 'settings'>): StoreOptions => ({
  name: 'medical-records',
  indexes: [
    // One per branch of the permission query (medical-records.access.ts), each usable for a newest-first page.
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

export class MedicalRecordService extends ResourceService<
  Stored<MedicalRecord>,
  MedicalRecordData,
  MedicalRecordPatch,
  MedicalRecordQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, medicalRecordPath, getOptions(deps))
  }
}
