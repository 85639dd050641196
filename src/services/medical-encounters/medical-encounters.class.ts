// The medical-encounters store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { Encounter } from './medical-encounters.schema'
import type { MedicalEncounterData, MedicalEncounterPatch, MedicalEncounterQuery } from './medical-encounters.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'medical-encounters',
  indexes: [{ fields: { facility: 1 } }, { fields: { patient: 1 } }, { fields: { invoice: 1 } }]
})

/** The medical-encounters service as the app holds it: the store's adapter typed by the schemas. */
export type MedicalEncounterService = StoreService<Stored<Encounter>, MedicalEncounterData, MedicalEncounterPatch, MedicalEncounterQuery>

export const createEncounterService = (app: Application): MedicalEncounterService => createStore<Stored<Encounter>, MedicalEncounterData, MedicalEncounterPatch, MedicalEncounterQuery>(app, getOptions(app))
