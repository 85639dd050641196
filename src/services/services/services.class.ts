// The service catalogue store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { Service } from './services.schema'
import type { CatalogueServiceData, CatalogueServicePatch, CatalogueServiceQuery } from './services.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'services',
  indexes: [{ fields: { facility: 1 } }]
})

/** The services service as the app holds it: the store's adapter typed by the schemas. */
export type ServiceCatalogue = StoreService<
  Stored<Service>,
  CatalogueServiceData,
  CatalogueServicePatch,
  CatalogueServiceQuery
>

export const createServiceCatalogue = (app: Application): ServiceCatalogue =>
  createStore<Stored<Service>, CatalogueServiceData, CatalogueServicePatch, CatalogueServiceQuery>(
    app,
    getOptions(app)
  )
