// The organizations service: the store's typed adapter (its writes announced by ResourceService) and its options.
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, Stored } from '../../store'
import { ResourceService } from '../resource'
import type { Organization } from './organizations.schema'
import {
  organizationPath,
  type OrganizationData,
  type OrganizationPatch,
  type OrganizationQuery
} from './organizations.shared'

export const getOptions = (): StoreOptions => ({
  name: 'organizations',
  indexes: [{ fields: { type: 1 } }]
})

export class OrganizationService extends ResourceService<
  Stored<Organization>,
  OrganizationData,
  OrganizationPatch,
  OrganizationQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, organizationPath, getOptions())
  }
}
