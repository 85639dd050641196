// The subscription packages service: create and patch keep `requiresPayment` derived from the price
// (src/subscriptions/packages.ts).
import type { NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams } from '../../store'
import { ResourceService } from '../resource'
import type { PackageData, PackagePatch, PackageQuery } from './subscription-packages.shared'
import { subscriptionPackagePath } from './subscription-packages.shared'
import { preparePackage, preparePackagePatch } from '../../subscriptions/packages'
import type { Package } from './subscription-packages.schema'

export const getOptions = (): StoreOptions => ({
  name: 'subscription-packages',
  indexes: [
    { fields: { key: 1 }, unique: true, sparse: true },
    { fields: { type: 1 } },
    { fields: { types: 1 } }
  ]
})

export class PackageService extends ResourceService<Package, PackageData, PackagePatch, PackageQuery> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, subscriptionPackagePath, getOptions())
  }

  async create(data: PackageData, params?: StoreParams<PackageQuery>): Promise<Package> {
    return this.write('create', null, params, () => this.store.create(preparePackage(data), params))
  }

  async patch(id: NullableId, data: PackagePatch, params?: StoreParams<PackageQuery>): Promise<Package> {
    const patch = { ...preparePackagePatch(data), updatedAt: this.deps.clock.now() }
    return this.write('patch', id, params, () => this.store.patch(id, patch, params))
  }
}
