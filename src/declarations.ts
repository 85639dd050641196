import type {
  HookContext as FeathersHookContext,
  NextFunction,
  Params as FeathersParams
} from '@feathersjs/feathers'
import type { Application as FeathersApplication } from '@feathersjs/koa'
import type { AccessContext } from './schema/access'
import type { Configuration } from './configuration'

export type { NextFunction }

// Settings from config/: their schema and type are in src/configuration.ts.
export type { Configuration }

// Every service is registered under its path; the typed client lists them in src/client.ts.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ServiceTypes {}

export type Application = FeathersApplication<ServiceTypes, Configuration>

/** The `$populate` lookups one external request has made so far, across every nesting level. */
export interface PopulateBudget {
  used: number
}

/** What the log line of one REST request learns while the request runs (the account, once known). */
export interface RequestLog {
  account?: string
}

// Params as seen by this app's hooks: the authenticated account and its resolved access context.
export interface AppParams extends FeathersParams {
  account?: any
  authenticated?: boolean
  authentication?: any
  access?: AccessContext
  populateDepth?: number
  populateBudget?: PopulateBudget
  operators?: Record<string, unknown>
  existing?: any
  [key: string]: any
}

export type HookContext<S = any> = FeathersHookContext<Application, S> & { params: AppParams }

declare module '@feathersjs/feathers' {
  interface Params {
    account?: any
    access?: AccessContext
    populateDepth?: number
    populateBudget?: PopulateBudget
    operators?: Record<string, unknown>
    existing?: any
    /** The caller's write scope (read ∧ write rule) of an external patch/update/remove: every store write of
     *  the call carries it in its query (src/hooks/scope-access.ts). Absent on internal calls. */
    writeScope?: import('@feathersjs/feathers').Query
    /** Marks the internal calls of an organization's own set-up and clean-up (its creator's membership, removals). */
    bootstrap?: boolean
    /** The REST request's log entry (src/ops/observe.ts writes the line; the call's hooks fill in the account). */
    requestLog?: RequestLog
    /** GET /audit-events asked for CSV (`Accept: text/csv`; set by the REST layer of that service only). */
    csv?: boolean
  }
}
