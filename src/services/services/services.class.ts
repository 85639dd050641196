// The service catalogue: a facility's billable services, stored as sent (the registration's hooks set the
// defaults and `updatedAt`); every write is announced through `ResourceService.write`.
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, Stored } from '../../store'
import { ResourceService } from '../resource'
import type { Service } from './services.schema'
import {
  servicePath,
  type CatalogueServiceData,
  type CatalogueServicePatch,
  type CatalogueServiceQuery
} from './services.shared'

export const getOptions = (): StoreOptions => ({
  name: 'services',
  indexes: [{ fields: { facility: 1 } }]
})

export class ServiceCatalogue extends ResourceService<
  Stored<Service>,
  CatalogueServiceData,
  CatalogueServicePatch,
  CatalogueServiceQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, servicePath, getOptions())
  }
}
