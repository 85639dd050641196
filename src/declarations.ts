import type { HookContext as FeathersHookContext, NextFunction, Params as FeathersParams } from '@feathersjs/feathers'
import type { Application as FeathersApplication } from '@feathersjs/koa'
import type { AccessContext } from './access/context'

export type { NextFunction }

// Settings from config/ (see config/default.json and README's environment table).
export interface Configuration {
  host: string
  port: number
  public: string
  dataDir: string
  mongodb: string
  /** Embedded engine: when a write counts as written (src/store/nedb-commit.ts). */
  storeSync?: 'always' | 'batch' | 'os'
  /** REDIS_URL: the bus shared by several instances (events, rate limits, leases); empty = one process. */
  redis: string
  /** REDIS_PREFIX: prefix of every Redis key and channel of this deployment. */
  redisPrefix: string
  bodyLimit: string
  paginate: { default: number; max: number }
  populate: { maxDepth: number; maxFanOut: number }
  admin: { email: string; password: string; promoteExisting?: boolean }
  authentication: any
  logLevel: string
  /** Graceful shutdown: the longest a SIGTERM/SIGINT shutdown may take (SHUTDOWN_GRACE_MS). */
  shutdown: { graceMs: number }
  /** GET /metrics: the Bearer token scrapes must send (METRICS_TOKEN; empty: none). */
  metrics: { token: string }
  [key: string]: any
}

// Every service is registered under its path; the typed client lists them in src/client.ts.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ServiceTypes {}

export type Application = FeathersApplication<ServiceTypes, Configuration>

/** The `$populate` lookups one external request has made so far, across every nesting level. */
export interface PopulateBudget {
  used: number
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
  }
}
