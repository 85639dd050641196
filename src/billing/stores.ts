// The billing services' stores, for the domain functions (internal `_` methods: no hooks, no events).
import type { Application } from '../declarations'
import { storesByPath } from '../store'

export const paths = {
  encounters: 'medical-encounters',
  services: 'services',
  invoices: 'billing-invoices',
  items: 'billing-items',
  payments: 'billing-payments'
} as const

export const stores = (app: Application) => storesByPath(app, paths)

/** Params for an internal call that touches every matching document (never reachable from a client). */
export const multi = (query: Record<string, unknown>) => ({
  query,
  paginate: false as const,
  adapter: { multi: true }
})

/** Runs a store call, turning NotFound into `null`. */
export const orNull = async <T>(call: Promise<T>): Promise<T | null> => {
  try {
    return await call
  } catch (error: any) {
    if (error?.code === 404) return null
    throw error
  }
}
