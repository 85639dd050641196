// The organizations store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { Organization } from './organizations.schema'
import type { OrganizationData, OrganizationPatch, OrganizationQuery } from './organizations.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'organizations',
  indexes: [{ fields: { type: 1 } }]
})

/** The organizations service as the app holds it: the store's adapter typed by the schemas. */
export type OrganizationService = StoreService<
  Stored<Organization>,
  OrganizationData,
  OrganizationPatch,
  OrganizationQuery
>

export const createOrganizationService = (app: Application): OrganizationService =>
  createStore<Stored<Organization>, OrganizationData, OrganizationPatch, OrganizationQuery>(
    app,
    getOptions(app)
  )
