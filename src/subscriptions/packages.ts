// Subscription packages: what a facility may subscribe to. A package names its price per interval, its trial,
// the facility kinds it suits and its products (features and limits), each with a base value, whether a
// subscriber may toggle it, and the price of doing so. `requiresPayment` is derived from the price.
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import { invalid } from '../schema/validators'
import { check, dataValidator } from '../schema/validators'
import { withLeaseWaiting } from '../cluster/lease'
import {
  packageDataSchema,
  type Package,
  type Product
} from '../services/subscription-packages/subscription-packages.schema'
import { subscriptionSettings } from './settings'

export const packagesPath = 'subscription/packages'

/** Product keys that would collide with a subscription's own fields. */
export const RESERVED_PRODUCT_KEYS = [
  'id',
  'facility',
  'package',
  'status',
  'createdAt',
  'createdBy',
  'updatedAt',
  'trialEndsAt',
  'currentPeriodStart',
  'currentPeriodEnd',
  'checkoutSession',
  'updatesPending',
  'statusHistory',
  'prorations',
  'retry',
  'incompleteAt',
  'canceledAt',
  'canceledBy',
  'cancelReason',
  'price',
  'currency',
  'interval',
  'reason',
  'features',
  'liveKey',
  'checkout',
  'trial'
]

/** 400 naming each product key that is reserved. */
export const checkProductKeys = (products: Record<string, Product> | undefined) => {
  const bad = Object.keys(products ?? {}).filter((key) => RESERVED_PRODUCT_KEYS.includes(key))
  if (bad.length)
    throw invalid(
      'data',
      bad.map((key) => ({ field: `products.${key}`, message: 'is a reserved name' }))
    )
}

/**
 * A new package's document:
 * 1. product keys must not be subscription field names (400);
 * 2. defaults: no types, a monthly interval, no trial, active, no products;
 * 3. `requiresPayment` = price > 0.
 */
export const preparePackage = <T extends { price: number; products?: Record<string, Product> }>(data: T) => {
  checkProductKeys(data.products)
  const doc = { types: [], interval: 'month', trialDays: 0, active: true, products: {}, ...data }
  return { ...doc, requiresPayment: doc.price > 0 }
}

/** A patch keeps `requiresPayment` in line with the price. */
export const preparePackagePatch = <T extends { price?: number; products?: Record<string, Product> }>(
  data: T
) => {
  checkProductKeys(data.products)
  return data.price === undefined ? data : { ...data, requiresPayment: data.price > 0 }
}

/** Each product's base value, by key: what a subscription to the package starts with. */
export const baseValues = (
  pkg: Pick<Package, 'products'> | null | undefined
): Record<string, boolean | number> => {
  const values: Record<string, boolean | number> = {}
  for (const [key, product] of Object.entries(pkg?.products ?? {})) values[key] = product.base
  return values
}

/** Why `pkg` does not suit the organization (its type differs, or its kinds share none with the package's), or null. */
export const unsuitable = (
  pkg: Package,
  organization: { type?: string; types?: string[] }
): string | null => {
  if (pkg.type !== organization.type)
    return `is a package for organizations of type '${pkg.type}', not '${organization.type}'`
  const kinds = organization.types ?? []
  if (pkg.types.length > 0 && !pkg.types.some((kind) => kinds.includes(kind))) {
    return `suits ${pkg.types.join(', ')}; the organization is ${kinds.length ? kinds.join(', ') : 'of no kind'}`
  }
  return null
}

/** The package `id` if it exists and is active; otherwise a 400 naming `field`. */
export const activePackage = async (deps: Deps, id: unknown, field: string): Promise<Package> => {
  if (typeof id !== 'string' || id.length === 0 || id.length > 64)
    throw invalid('data', [{ field, message: 'must be a package id' }])
  const found = await deps.stores.packages._find({ query: { id, $limit: 1 }, paginate: false })
  if (!found.length) throw invalid('data', [{ field, message: `no package found for id '${id}'` }])
  if (!found[0].active) throw invalid('data', [{ field, message: `package '${id}' is not active` }])
  return found[0]
}

/** The package a facility without a live subscription is measured against (config `subscriptions.defaultPackage`). */
export const defaultPackage = async (deps: Deps): Promise<Package | null> => {
  const key = subscriptionSettings(deps).defaultPackage
  const found = await deps.stores.packages._find({ query: { key, $limit: 1 }, paginate: false })
  return found[0] ?? null
}

/**
 * The packages of config `subscriptions.packages` are created on start-up when no package with their `key` exists
 * (one instance at a time; afterwards they are edited like every other package and never overwritten).
 */
export const seedPackages = async (app: Application, deps: Deps) => {
  const service = deps.stores.packages
  // (`app` only for the lease, which the cluster layer keeps per app)
  await withLeaseWaiting(app, 'subscription-packages-seed', 30_000, async () => {
    for (const entry of subscriptionSettings(deps).packages) {
      const { key, ...rest } = entry as { key?: unknown }
      if (typeof key !== 'string' || !key) {
        deps.logger.warn('A configured subscription package without a key was skipped')
        continue
      }
      const existing = await service._find({ query: { key, $limit: 1 }, paginate: false })
      if (existing.length) continue
      const data = check<Parameters<typeof preparePackage>[0]>(
        dataValidator,
        packageDataSchema,
        { ...rest },
        `subscriptions.packages['${key}']`
      )
      await service._create({ ...preparePackage(data), key, createdAt: deps.clock.now(), createdBy: null })
    }
  })
}
