// The subscription packages store and its class: create and patch keep `requiresPayment` derived from the price
// (src/subscriptions/packages.ts).
import type { Id, NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService } from '../../store'
import type { PackageData, PackagePatch, PackageQuery } from './subscription-packages.shared'
import { preparePackage, preparePackagePatch } from '../../subscriptions/packages'
import type { Package } from './subscription-packages.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'subscription-packages',
  indexes: [
    { fields: { key: 1 }, unique: true, sparse: true },
    { fields: { type: 1 } },
    { fields: { types: 1 } }
  ]
})

const packageMethods = (_app: Application) => (Base: any) =>
  class SubscriptionPackageService extends Base {
    async create(data: any, params?: Params) {
      return super.create(preparePackage(data), params)
    }

    async patch(id: NullableId, data: any, params?: Params) {
      return super.patch(id as Id, { ...preparePackagePatch(data), updatedAt: Date.now() }, params)
    }
  }

export type PackageService = StoreService<Package, PackageData, PackagePatch, PackageQuery>

export const createPackageService = (app: Application): PackageService =>
  createStore<Package, PackageData, PackagePatch, PackageQuery>(app, getOptions(app), packageMethods(app))
