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
import type { Application, ServiceTypes } from '../declarations'
import type { AccessContext } from './context'
import { appSlot } from '../runtime'

export type WriteMethod = 'patch' | 'update' | 'remove'

/** A document of a service (what its rules are asked about). */
export type Doc = Record<string, unknown>

/** The documents of the service at `P`, as its `get` answers them (a plain document when it says nothing). */
export type DocOf<P> = P extends keyof ServiceTypes
  ? ServiceTypes[P] extends { get(id: never, params?: never): Promise<infer R> }
    ? R & object
    : Doc
  : Doc

/** The body of a create of the service at `P`, as its `create` takes it. */
export type DataOf<P> = P extends keyof ServiceTypes
  ? ServiceTypes[P] extends { create(data: infer D, params?: never): Promise<unknown> }
    ? D
    : Doc
  : Doc

/**
 * A service holding patient data says so next to its access rules: every external call to it is then written to
 * the audit trail (src/hooks/record-audit.ts) with the patient and facility of each document it touched.
 * Each function answers from a stored document (a lookup may be asynchronous), never from the caller's trimmed view:
 * `fields` names the stored fields they read, which every call fetches whatever its `$select` says (and hides again).
 */
export interface AuditDeclaration<D = Doc> {
  /** The stored fields `patient` and `facility` read (dot notation for nested ones). */
  fields: string[]
  /** The patient's account id the document is about, when there is one. */
  patient(doc: D, app: Application): string | undefined | Promise<string | undefined>
  /** The facility (organization id) the document belongs to, when there is one. */
  facility?(doc: D, app: Application): string | undefined | Promise<string | undefined>
}

/** Throws NotFound/Forbidden when `access` may not create `data`; resolves otherwise. */
export type CreateRule<Data = Doc> = (
  access: AccessContext,
  data: Data,
  app: Application
) => void | Promise<void>

export interface AccessRules<D = Doc, Data = Doc> {
  /** Query selecting the documents the caller may read; `null` means all of them. */
  read(access: AccessContext): Query | null
  /** Query selecting, among readable documents, those the caller may change; defaults to `read`. */
  write?(access: AccessContext, method: WriteMethod): Query | null
  /** Who may create: `'anyone'` (no account needed) or a check of the new document's data. */
  create: 'anyone' | CreateRule<Data>
  /** Channel names whose connections may be interested in an event about `doc` (default: every signed-in connection). */
  audience?(doc: D): string[]
  /** The organizations `doc` belongs to: organization webhooks receive events of their organization's documents only
   *  (a service without it delivers to no organization webhook). */
  organizations?(doc: D): (string | undefined)[]
  /** Patient data: every external call is recorded in the audit trail (see AuditDeclaration). */
  audit?: AuditDeclaration<D>
}

// Each app's rules by service path: per-app state (a rule may read that app's settings).
const rulesSlot = appSlot<Map<string, AccessRules>>('access rules')
const rulesOf = (app: Application) => rulesSlot.ensure(app, () => new Map())

/** Declares a service's access rules under its path, for this app; the rules are typed by the service's documents. */
export const defineAccess = <P extends string>(
  app: Application,
  path: P,
  access: AccessRules<DocOf<P>, DataOf<P>>
) => {
  // (cast: the rules of `path` are only ever asked about documents and bodies of that service)
  rulesOf(app).set(path, access as unknown as AccessRules)
}

/** The access rules `app` declared for service `path` (undefined when none). */
export const accessRules = (app: Application, path: string): AccessRules | undefined => rulesOf(app).get(path)

// sift evaluates the same Mongo-style query in memory; `$elemMatch`, `$in`, `$size`, `$or` behave as in the stores.
export const matches = (query: Query | null, doc: unknown) => query === null || sift<Query>(query)(doc)

/**
 * The results of a rule's conditions for one document, by the condition's JSON: the readers of one realtime event
 * share them (the staff of one facility with the same roles hold the same organization conditions).
 */
export type ConditionResults = Map<string, boolean>

/** A compiled rule: does it select `doc`? Conditions already judged for this document come from `known`. */
export type CompiledRule = (doc: unknown, known?: ConditionResults) => boolean

/** Compiled conditions by their JSON, shared by the rules compiled with it (many readers hold the same ones). */
export type CompiledConditions = Map<string, (doc: unknown) => boolean>

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value)

const MAX_COMPILED_CONDITIONS = 50_000

interface Condition {
  text: string
  value: Query
}

/**
 * `query` (or null: everything) compiled for evaluating on many documents, with the same answers as `matches`: a
 * query is the conjunction of its keys, `$and` of its parts, `$or` of its branches (Mongo's semantics), and each
 * remaining condition on one field (or any other operator) is evaluated by sift on its own — compiled when first
 * needed, kept in `compiled` — its answer for the document kept in `known` under the condition's JSON. A realtime
 * event asks the rule of every reader: conditions that do not name the reader (an organization's grant) are then
 * evaluated once per event instead of once per reader, and a branch already known to hold for this document answers
 * an `$or` before the reader's own conditions are looked at (the branches are alternatives: order does not change
 * the answer).
 */
export const compileRule = (query: Query | null, compiled: CompiledConditions = new Map()): CompiledRule => {
  if (query === null) return () => true
  const testOf = (condition: Condition) => {
    let test = compiled.get(condition.text)
    if (!test) {
      // (bounded: accounts come and go; a rule keeps the tests it already took)
      if (compiled.size >= MAX_COMPILED_CONDITIONS) compiled.clear()
      compiled.set(condition.text, (test = sift<Query>(condition.value)))
    }
    return test
  }
  const leaf = (condition: Condition): CompiledRule => {
    let test: ((doc: unknown) => boolean) | undefined
    return (doc, known) => {
      test ??= testOf(condition)
      if (!known) return test(doc)
      let result = known.get(condition.text)
      if (result === undefined) known.set(condition.text, (result = test(doc)))
      return result
    }
  }
  const conjunction: CompiledRule[] = []
  for (const [key, value] of Object.entries(query)) {
    if (
      (key === '$and' || key === '$or') &&
      Array.isArray(value) &&
      value.length > 0 &&
      value.every(isPlainObject)
    ) {
      const parts = value.map((part) => compileRule(part as Query, compiled))
      if (key === '$and') {
        conjunction.push((doc, known) => parts.every((part) => part(doc, known)))
        continue
      }
      // The branches that are one condition each, by JSON: answered from `known` first.
      const single = value.filter(
        (part) => Object.keys(part).length === 1 && !('$and' in part) && !('$or' in part)
      )
      const texts = single.map((part) => JSON.stringify(part))
      conjunction.push((doc, known) => {
        if (known) for (const text of texts) if (known.get(text) === true) return true
        return parts.some((part) => part(doc, known))
      })
      continue
    }
    const value_ = { [key]: value }
    conjunction.push(leaf({ text: JSON.stringify(value_), value: value_ }))
  }
  if (conjunction.length === 1) return conjunction[0]
  return (doc, known) => conjunction.every((part) => part(doc, known))
}

/** `query` narrowed by every given scope (each a query, or null for "no restriction"), in `$and`. */
export const within = (query: Query | undefined, ...scopes: (Query | null | undefined)[]): Query => {
  const extra = scopes.filter((scope): scope is Query => !!scope)
  const base: Query = { ...(query ?? {}) }
  const existing =
    base.$and === undefined ? [] : Array.isArray(base.$and) ? (base.$and as Query[]) : [base.$and as Query]
  return extra.length ? { ...base, $and: [...existing, ...extra] } : base
}

/** The organizations a document of service `path` belongs to (none when the service does not say). */
export const organizationsOf = (app: Application, path: string, doc: Doc): string[] => {
  const found = accessRules(app, path)?.organizations?.(doc) ?? []
  return found.filter((id): id is string => typeof id === 'string' && id.length > 0)
}

/** Could this caller read `doc` of service `path` through the API? */
export const canRead = (app: Application, path: string, access: AccessContext, doc: unknown) => {
  const access_ = accessRules(app, path)
  if (!access_) return false
  return matches(access_.read(access), doc)
}
