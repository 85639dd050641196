// Who is calling: the account, whether it is an application admin, and its organization memberships.
// Loaded once per call (or per realtime connection) and used by every access rule.
//
// Memberships are cached per account, stamped with the account's `accessVersion`: every write of the
// organization-members store (create, patch, remove, internal cascades included) bumps `accessVersion` of the
// accounts it touched, in the store, before the write resolves (src/services/organization-members/). Every
// authenticated call reads the account once anyway (the session check, src/auth/sessions.ts), so it knows the
// current version and uses the cached memberships only when their stamp matches. A change is thus seen by the
// very next call on every instance, with no shared bus: zero staleness for revocations (a membership removed, a
// privilege taken away, an account removed or its sessions ended — the last two are checked on the account
// itself). The one gap is a process dying between a membership write and its version bump (the call was never
// answered): other instances may then use memberships they cached before for at most `accessCache.ttlMs`
// (default 30 s), after which every entry is reloaded.
import type { Application } from '../declarations'
import type { AccessContext, Membership } from './types'
import { appSlot } from '../runtime'

export type { AccessContext, Membership }

/** On an account read for this call: its `accessVersion` (a hidden field) as read, 0 when never bumped. */
export const ACCESS_VERSION = Symbol('accessVersion')

interface CachedMemberships {
  version: number
  at: number
  memberships: readonly Membership[]
}

const cacheSlot = appSlot<Map<string, CachedMemberships>>('memberships cache')
const cacheOf = (app: Application) => cacheSlot.ensure(app, () => new Map())

const ttlOf = (app: Application) => {
  const ttl = app.get('accessCache').ttlMs
  return Number.isFinite(ttl) && ttl >= 0 ? ttl : 30000
}

/** The version stamp of an account document (a missing field counts as 0). */
export const accessVersionOf = (account: { accessVersion?: unknown }) =>
  typeof account.accessVersion === 'number' && Number.isFinite(account.accessVersion)
    ? account.accessVersion
    : 0

/** Forgets this process's cached memberships of an account (the store's version stamp covers other processes). */
export const forgetAccess = (app: Application, accountId: string) => {
  cacheOf(app).delete(accountId)
}

const readMemberships = async (app: Application, accountId: string) => {
  const found = (await app.service('organization-members')._find({
    query: { uid: accountId },
    paginate: false
  })) as Membership[]
  return Object.freeze(
    found.map((membership) =>
      Object.freeze({
        ...membership,
        roles: Object.freeze([...membership.roles]),
        privileges: Object.freeze([...membership.privileges])
      })
    )
  ) as unknown as Membership[] // frozen: shared by every call of the account
}

/**
 * The caller's access context. With the account's version as read for this call (`ACCESS_VERSION`, set by the
 * session check) the memberships come from the cache when their stamp matches; otherwise from the store.
 */
export const loadAccessContext = async (
  app: Application,
  account: { id: string; admin?: boolean; [ACCESS_VERSION]?: number }
): Promise<AccessContext> => {
  const version = account[ACCESS_VERSION]
  const base = { accountId: account.id, admin: account.admin === true }
  if (typeof version !== 'number') return { ...base, memberships: await readMemberships(app, account.id) }
  const cache = cacheOf(app)
  const hit = cache.get(account.id)
  if (hit && hit.version === version && Date.now() - hit.at < ttlOf(app))
    return { ...base, memberships: hit.memberships as Membership[] }
  const at = Date.now()
  const memberships = await readMemberships(app, account.id)
  cache.set(account.id, { version, at, memberships })
  return { ...base, memberships }
}

/** Ids of the organizations the caller belongs to. */
export const organizationIds = (access: AccessContext) => access.memberships.map((m) => m.organization)

/** Ids of the organizations in which the caller is a superadmin. */
export const superadminOf = (access: AccessContext) =>
  access.memberships.filter((m) => m.superadmin).map((m) => m.organization)

/**
 * Is the caller a member of `organization` holding any of `roles` or any of `privileges`?
 * With neither list given (or both empty), any membership matches.
 */
export const isMemberWith = (
  access: AccessContext,
  organization: string,
  criteria: { roles?: string[]; privileges?: string[]; superadmin?: boolean } = {}
): boolean => {
  const membership = access.memberships.find((m) => m.organization === organization)
  if (!membership) return false
  if (criteria.superadmin && !membership.superadmin) return false
  const roles = criteria.roles ?? []
  const privileges = criteria.privileges ?? []
  if (roles.length === 0 && privileges.length === 0) return true
  return (
    roles.some((r) => membership.roles.includes(r)) ||
    privileges.some((p) => membership.privileges.includes(p))
  )
}

/** The same question asked of the store for any account: "is account X a member of O with any of R or P?" */
export const accountIsMemberWith = async (
  app: Application,
  accountId: string,
  organization: string,
  criteria: { roles?: string[]; privileges?: string[]; superadmin?: boolean } = {}
) => isMemberWith(await loadAccessContext(app, { id: accountId }), organization, criteria)
