// One way to present: what clients see of a service's documents is that service's external resolver
// (`<name>ExternalResolver` in its `<name>.schema.ts`, the Feathers generator's way). `externalView` registers it
// for the service's `around.all` hooks as `resolveExternal`, which writes `context.dispatch` (what external
// callers, realtime events and webhook deliveries get) and leaves `context.result` whole for internal callers.
// `presentExternal` runs the same resolver for documents announced outside a service call (src/services/announce.ts).
import { createContext, type Service } from '@feathersjs/feathers'
import { hooks as schemaHooks, type Resolver } from '@feathersjs/schema'
import type { Application, ServiceTypes } from '../declarations'
import { appSlot } from '../runtime'
import type { ResolverContext, Stored } from './resolvers'

export { hidden, omittingResolver, type Stored } from './resolvers'

// Each app's external resolvers by service path (per-app state, like the services themselves).
const resolversSlot = appSlot<Map<string, Resolver<Stored<object>, ResolverContext>>>('external resolvers')
const resolversOf = (app: Application) => resolversSlot.ensure(app, () => new Map())

/** The `around.all` hook presenting `path`'s documents through `resolver`, recorded for `presentExternal`. */
export const externalView = <R extends object>(
  app: Application,
  path: string,
  resolver: Resolver<R, ResolverContext>
) => {
  resolversOf(app).set(path, resolver as unknown as Resolver<Stored<object>, ResolverContext>)
  return schemaHooks.resolveExternal(resolver)
}

/** The client view of one document of `path` (as its service's external resolver shapes it). */
export const presentExternal = async <T = unknown>(app: Application, path: string, doc: T): Promise<T> => {
  const resolver = resolversOf(app).get(path)
  if (!resolver || !doc || typeof doc !== 'object' || Array.isArray(doc)) return doc
  // An internal context of the service (app, path, service), as the resolver would get in a call: the service is
  // the app's own, registered under `path` (its resolver is recorded only once it is).
  const service = app.service(path as keyof ServiceTypes) as unknown as Service // (cast: a path known at run time)
  const context = createContext(service, 'get', {
    arguments: [null, {}]
  }) as unknown as ResolverContext
  return (await resolver.resolve(doc as Stored<object>, context)) as T
}
