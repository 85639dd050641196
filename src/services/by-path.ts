// A registered service looked up by a path known only at run time — the path of an announced change, a webhook
// pattern's service, a service the directory watches — through Feathers' untyped surface. Code that knows its
// collaborator at compile time receives it instead (`deps.stores`, typed).
import type { FeathersService } from '@feathersjs/feathers'
import type { Application, ServiceTypes } from '../declarations'

/** The service registered at `path` (with its hooks and events), untyped. */
export const serviceByPath = (app: Application, path: string): FeathersService<Application, object> =>
  // (cast: the path is a run-time string, not one of ServiceTypes' keys)
  app.service(path as keyof ServiceTypes) as unknown as FeathersService<Application, object>
