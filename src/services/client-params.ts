// Params of a typed client call: the service's query schema plus `$populate`, which src/hooks/populate.ts takes
// off the query (resolving references on read) before the query is validated.
import type { Params } from '@feathersjs/feathers'

/** One named populate: the target service, the local and foreign keys, and optionally a nested `$populate`. */
export interface PopulateRequest {
  service: string
  localKey?: string
  foreignKey?: string
  /** 'get', 'find' or 'findOne' (checked by the server). */
  method?: string
  $select?: string[]
  $populate?: Record<string, PopulateRequest>
}

export type ClientParams<Query> = Params<Query & { $populate?: Record<string, PopulateRequest> }>
