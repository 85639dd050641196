// The service catalogue store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Service } from './services.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'services',
  indexes: [{ fields: { facility: 1 } }]
})

export const createServiceCatalogue = (app: Application) => createStore<Service>(app, getOptions(app))
