import type {
  HookContext as FeathersHookContext,
  NextFunction,
  Params as FeathersParams,
  Query
} from '@feathersjs/feathers'
import type { Application as FeathersApplication } from '@feathersjs/koa'
import type { AccessContext } from './schema/access'
import type { Stored } from './schema/resolvers'
import type { Configuration } from './configuration'
import type { Account } from './services/accounts/accounts.schema'

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

// Params as this app's hooks and services see them: Feathers' own, with the fields declared just below (the one
// place they are declared, so that a misspelt field is a compile error rather than an undefined at run time).
export type AppParams<Q = Query> = FeathersParams<Q>

// (any: a generic hook runs on every service, whose type it cannot name; a service's own hooks pass theirs)
export type HookContext<S = any> = FeathersHookContext<Application, S> & { params: AppParams }

// (`authenticated` and `authentication` are declared by @feathersjs/authentication itself.)
declare module '@feathersjs/feathers' {
  interface Params {
    /** The authenticated account, as stored (set by authentication; absent on internal calls). */
    account?: Stored<Account>
    /** The caller's memberships and rights (src/access/context.ts loads them). */
    access?: AccessContext
    /** On a realtime connection only: the memberships its channels and event filters were built from (refreshed
     *  when they change). Never a call's access: every call loads its own, checked against the account's version. */
    channelAccess?: AccessContext
    /** On a realtime connection only: the channels src/channels.ts made it join (what it leaves, without walking
     *  every channel of the app). */
    channelNames?: string[]
    populateDepth?: number
    populateBudget?: PopulateBudget
    /** The body operators a service declares, taken off the body (src/hooks/reject-unsafe-keys.ts). */
    operators?: Record<string, unknown>
    /** The document a patch/update/remove acts on, as stored, once the access check loaded it (its service's
     *  class knows its type: a stored document of some service here). */
    existing?: Stored<{ id: string }>
    /** The caller's write scope (read ∧ write rule) of an external patch/update/remove: every store write of
     *  the call carries it in its query (src/hooks/scope-access.ts). Absent on internal calls. */
    writeScope?: Query
    /** Marks the internal calls of an organization's own set-up and clean-up (its creator's membership, removals). */
    bootstrap?: boolean
    /** The REST request's log entry (src/ops/observe.ts writes the line; the call's hooks fill in the account). */
    requestLog?: RequestLog
    /** The client's IP address (REST and Socket.IO calls; absent on internal calls). */
    ip?: string
    /** The client's User-Agent header (REST: the request's; Socket.IO: the handshake's). */
    userAgent?: string
    /** Identifies one call in the audit trail and in the X-Request-Id response header (REST). */
    requestId?: string
    /** GET /audit-events asked for CSV (`Accept: text/csv`; set by the REST layer of that service only). */
    csv?: boolean
  }
}
