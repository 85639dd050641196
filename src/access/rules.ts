// Access rules, stated once per service (`defineAccess`), and used everywhere:
// - `read`: the documents the caller may read, as a store query. It scopes find/get in the store query,
//   filters realtime events (channels.ts) and webhook deliveries.
// - `write` (optional, defaults to `read`): among readable documents, those the caller may patch, update or
//   remove. Together with `read` it becomes the caller's write scope, which is part of the store query of the
//   write itself (hooks/scope-access.ts), so a write never touches a document its check did not cover.
// - `create`: the check of a new document's data against the caller's rights ('anyone' for public sign-up).
// Every refusal follows one rule: what the caller cannot read (a document, or the organization, invoice or
// item a new document would go under) is a 404; what they can read but not change is a 403.
import sift from 'sift'
import type { Query } from '@feathersjs/feathers'
import type { Application } from '../declarations'
import type { AccessContext } from './context'
import { appSlot } from '../runtime'

export type WriteMethod = 'patch' | 'update' | 'remove'

/**
 * A service holding patient data says so next to its access rules: every external call to it is then written to
 * the audit trail (src/hooks/record-audit.ts) with the patient and facility of each document it touched.
 * Each function answers from a stored document (a lookup may be asynchronous), never from the caller's trimmed view:
 * `fields` names the stored fields they read, which every call fetches whatever its `$select` says (and hides again).
 */
export interface AuditDeclaration {
  /** The stored fields `patient` and `facility` read (dot notation for nested ones). */
  fields: string[]
  /** The patient's account id the document is about, when there is one. */
  patient(doc: any, app: Application): string | undefined | Promise<string | undefined>
  /** The facility (organization id) the document belongs to, when there is one. */
  facility?(doc: any, app: Application): string | undefined | Promise<string | undefined>
}

/** Throws NotFound/Forbidden when `access` may not create `data`; resolves otherwise. */
export type CreateRule = (access: AccessContext, data: any, app: Application) => void | Promise<void>

export interface AccessRules {
  /** Query selecting the documents the caller may read; `null` means all of them. */
  read(access: AccessContext): Query | null
  /** Query selecting, among readable documents, those the caller may change; defaults to `read`. */
  write?(access: AccessContext, method: WriteMethod): Query | null
  /** Who may create: `'anyone'` (no account needed) or a check of the new document's data. */
  create: 'anyone' | CreateRule
  /** Channel names whose connections may be interested in an event about `doc` (default: every signed-in connection). */
  audience?(doc: any): string[]
  /** The organizations `doc` belongs to: organization webhooks receive events of their organization's documents only
   *  (a service without it delivers to no organization webhook). */
  organizations?(doc: any): string[]
  /** Patient data: every external call is recorded in the audit trail (see AuditDeclaration). */
  audit?: AuditDeclaration
}

// Each app's rules by service path: per-app state (a rule may read that app's settings).
const rulesSlot = appSlot<Map<string, AccessRules>>('access rules')
const rulesOf = (app: Application) => rulesSlot.ensure(app, () => new Map())

/** Declares a service's access rules under its path, for this app. */
export const defineAccess = (app: Application, path: string, access: AccessRules) => {
  rulesOf(app).set(path, access)
}

/** The access rules `app` declared for service `path`, if any. */
export const accessRules = (app: Application, path: string): AccessRules | undefined => rulesOf(app).get(path)

// sift evaluates the same Mongo-style query in memory; `$elemMatch`, `$in`, `$size`, `$or` behave as in the stores.
// (cast: sift types its queries with its own generic query type)
export const matches = (query: Query | null, doc: any) => query === null || sift(query as any)(doc)

/** `query` narrowed by every given scope (each a query, or null for "no restriction"), in `$and`. */
export const within = (query: Query | undefined, ...scopes: (Query | null | undefined)[]): Query => {
  const extra = scopes.filter((scope): scope is Query => !!scope)
  const base: Query = { ...(query ?? {}) }
  const existing =
    base.$and === undefined ? [] : Array.isArray(base.$and) ? (base.$and as Query[]) : [base.$and as Query]
  return extra.length ? { ...base, $and: [...existing, ...extra] } : base
}

/** The organizations a document of service `path` belongs to (none when the service does not say). */
export const organizationsOf = (app: Application, path: string, doc: any): string[] => {
  const found = accessRules(app, path)?.organizations?.(doc) ?? []
  return found.filter((id) => typeof id === 'string' && id.length > 0)
}

/** Could this caller read `doc` of service `path` through the API? */
export const canRead = (app: Application, path: string, access: AccessContext, doc: any) => {
  const access_ = accessRules(app, path)
  if (!access_) return false
  return matches(access_.read(access), doc)
}
