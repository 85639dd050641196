// Path and methods of the subscription packages service, shared with the typed client (packages are deactivated, not removed).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { Static } from '@feathersjs/typebox'
import type { ClientParams } from '../client-params'
import type {
  Package,
  packageDataSchema,
  packagePatchSchema,
  packageQuerySchema
} from './subscription-packages.schema'

export const subscriptionPackagePath = 'subscription/packages'
export const subscriptionPackageMethods = ['find', 'get', 'create', 'patch'] as const

export type { Package }
export type PackageData = Static<typeof packageDataSchema>
export type PackagePatch = Static<typeof packagePatchSchema>
export type PackageQuery = Static<typeof packageQuerySchema>

/** What a client may call on subscription packages: its methods, typed by the schemas (data in, result out). */
export type PackageClientService = Pick<
  ClientService<Package, PackageData, PackagePatch, Paginated<Package>, ClientParams<PackageQuery>>,
  (typeof subscriptionPackageMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [subscriptionPackagePath]: PackageClientService
  }
}
