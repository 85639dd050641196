// The pieces of external resolvers the services' schema files use (client-side files: this module imports no
// server code); registering and running them is src/schema/external.ts.
import { resolve } from '@feathersjs/schema'
import type { HookContext } from '../declarations'

/** A stored document as resolvers see it: the external schema's fields and the server's bookkeeping fields. */
export type Stored<T> = T & Record<string, unknown>

/** Resolver properties that keep `fields` on the server (a property resolved to undefined is left out). */
export const hidden = <K extends string>(fields: readonly K[]): Record<K, () => Promise<undefined>> => {
  const properties = {} as Record<K, () => Promise<undefined>>
  for (const field of fields) properties[field] = async () => undefined
  return properties
}

/** An external resolver that only leaves `fields` out. */
export const omittingResolver = <T extends object>(fields: readonly string[]) => resolve<Stored<T>, HookContext>(hidden(fields))
