// The pieces of external resolvers the services' schema files use (client-side files: this module imports no
// server code, so the typed client's declarations need none); registering and running them is src/schema/external.ts.
import { resolve } from '@feathersjs/schema'
import type { HookContext } from '@feathersjs/feathers'

/** The context a resolver gets: a hook context of this app's services (Feathers' type: the client package's
 *  declarations reach the schema files, and must not need the server's). */
export type ResolverContext = HookContext

/**
 * A document as the store holds it: the schema's fields, typed, plus the server's bookkeeping fields (pending
 * operations, reservations, hashes) that the external view leaves out. The one definition, used by the store,
 * the domain and the resolvers alike.
 * (any: the bookkeeping fields are read by domain code that checks them itself, field by field)
 */
export type StoreDoc = Record<string, any>

export type Stored<T> = T & StoreDoc

/** Resolver properties that keep `fields` on the server (a property resolved to undefined is left out). */
export const hidden = <K extends string>(fields: readonly K[]): Record<K, () => Promise<undefined>> => {
  const properties = {} as Record<K, () => Promise<undefined>>
  for (const field of fields) properties[field] = async () => undefined
  return properties
}

/** An external resolver that only leaves `fields` out. */
export const omittingResolver = <T extends object>(fields: readonly string[]) =>
  resolve<Stored<T>, ResolverContext>(hidden(fields))

/** A document as clients receive it: `T` without the fields its external resolver leaves out (`Hidden`); unlike
 *  `Omit`, it keeps the other fields' types when `T` also allows further fields. */
export type External<T, Hidden extends readonly string[]> = {
  [K in keyof T as K extends Hidden[number] ? never : K]: T[K]
}
