// Access rules, stated once per service as queries: `read` scopes find/get/patch/remove (and realtime
// events and webhooks via `canRead`); `write` (optional) narrows patch/update/remove among readable ones;
// `organizations` (optional) says which organizations a document belongs to (organization webhooks).
import sift from 'sift'
import type { Query } from '@feathersjs/feathers'
import type { AccessContext } from './context'

export interface AccessRules {
  /** Query selecting the documents the caller may read; `null` means all of them. */
  read(access: AccessContext): Query | null
  /** Query selecting the documents the caller may change; defaults to `read`. */
  write?(access: AccessContext, method: 'patch' | 'update' | 'remove'): Query | null
  /** Channel names whose connections may be interested in an event about `doc` (default: every signed-in connection). */
  audience?(doc: any): string[]
  /** The organizations `doc` belongs to: organization webhooks receive events of their organization's documents only
   *  (a service without it delivers to no organization webhook). */
  organizations?(doc: any): string[]
}

const rules = new Map<string, AccessRules>()

/** Declares a service's access rules under its path. */
export const defineAccess = (path: string, access: AccessRules) => {
  rules.set(path, access)
}

export const accessRules = (path: string) => rules.get(path)

// sift evaluates the same Mongo-style query in memory; `$elemMatch`, `$in`, `$size`, `$or` behave as in the stores.
export const matches = (query: Query | null, doc: any) => query === null || sift(query as any)(doc)

/** The organizations a document of service `path` belongs to (none when the service does not say). */
export const organizationsOf = (path: string, doc: any): string[] => {
  const found = rules.get(path)?.organizations?.(doc) ?? []
  return found.filter((id) => typeof id === 'string' && id.length > 0)
}

/** Could this caller read `doc` of service `path` through the API? */
export const canRead = (path: string, access: AccessContext, doc: any) => {
  const access_ = rules.get(path)
  if (!access_) return false
  return matches(access_.read(access), doc)
}
