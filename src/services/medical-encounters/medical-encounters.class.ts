// The medical-encounters store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Encounter } from './medical-encounters.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'medical-encounters',
  indexes: [{ fields: { facility: 1 } }, { fields: { patient: 1 } }, { fields: { invoice: 1 } }]
})

export const createEncounterService = (app: Application) => createStore<Encounter>(app, getOptions(app))
