// The organizations service: what a POST and a DELETE do (the creator becomes the first superadmin; a removal takes
// the organization's memberships, webhooks and live subscription with it), and the store's options.
import { NotAuthenticated } from '@feathersjs/errors'
import type { NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { onBehalfOf } from '../../audit/changes'
import { cancelForRemovedFacility } from '../../subscriptions/lifecycle'
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

  /** Creates the organization with its creator as the first superadmin member; without that membership the
   *  organization is not kept. */
  async create(
    data: OrganizationData,
    params: StoreParams<OrganizationQuery> = {}
  ): Promise<Stored<Organization>> {
    return this.write('create', null, params, async () => {
      const creator = params.account
      if (!creator) throw new NotAuthenticated('Not authenticated')
      const organization = await this.store.create(data, params)
      try {
        await this.app.service('organization-members').create(
          {
            organization: organization.id,
            uid: creator.id,
            roles: [],
            privileges: [],
            superadmin: true
          },
          { ...onBehalfOf(params), account: params.account, authenticated: true, bootstrap: true }
        )
      } catch (error) {
        await this._remove(organization.id)
        throw error
      }
      return organization
    })
  }

  /** Removes the organization, then its memberships and its webhooks, and cancels its live subscription. */
  async remove(id: NullableId, params: StoreParams<OrganizationQuery> = {}): Promise<Stored<Organization>> {
    return this.write('remove', id, params, async () => {
      const removed = await this.store.remove(id, params)
      const organization = removed.id
      // (on behalf of the caller: the removals' audit events name who removed them)
      const cascade = () => ({ bootstrap: true, ...onBehalfOf(params) })
      const { members, webhooks } = this.deps.stores
      for (const doc of await members._find({ query: { organization }, paginate: false }))
        await this.app.service('organization-members').remove(doc.id, cascade())
      for (const doc of await webhooks._find({ query: { organization }, paginate: false }))
        await this.app.service('webhooks').remove(doc.id, cascade())
      await cancelForRemovedFacility(this.deps, organization, params.account?.id ?? null)
      return removed
    })
  }
}
