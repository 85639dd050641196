// The medical-records store and its options: indexes for the permission query and the usual filters.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { MedicalRecord } from './medical-records.schema'
import type { MedicalRecordData, MedicalRecordPatch, MedicalRecordQuery } from './medical-records.shared'

export const getOptions = (app: Application): StoreOptions => ({
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
  paginate: app.get('medicalRecords').paginate
})

/** The medical-records service as the app holds it: the store's adapter typed by the schemas. */
export type MedicalRecordService = StoreService<
  Stored<MedicalRecord>,
  MedicalRecordData,
  MedicalRecordPatch,
  MedicalRecordQuery
>

export const createMedicalRecordService = (app: Application): MedicalRecordService =>
  createStore<Stored<MedicalRecord>, MedicalRecordData, MedicalRecordPatch, MedicalRecordQuery>(
    app,
    getOptions(app)
  )
