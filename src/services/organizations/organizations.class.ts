// The organizations store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Organization } from './organizations.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'organizations',
  indexes: [{ fields: { type: 1 } }]
})

export const createOrganizationService = (app: Application) => createStore<Organization>(app, getOptions(app))
