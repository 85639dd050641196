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
//
// The loader (the memberships source and the cache) is built once per app by the composition root and handed to
// the domain in its dependencies (`deps.access`); hooks and channels, which only have the app, find it in the
// app's `accessLoaderSlot`.
import type { Application } from '../declarations'
import type { AccessContext, Membership } from '../schema/access'
import { appSlot } from '../runtime'

export type { AccessContext, Membership }

/** On an account read for this call: its `accessVersion` (a hidden field) as read, 0 when never bumped. */
export const ACCESS_VERSION = Symbol('accessVersion')

/** The account an access context is loaded for (with the version read by the session check, when there was one). */
export interface AccessAccount {
  id: string
  admin?: boolean
  [ACCESS_VERSION]?: number
}

interface CachedMemberships {
  version: number
  at: number
  memberships: readonly Membership[]
}

/** What the loader reads: the memberships of an account as stored, the cache's lifetime, and the time. */
export interface AccessSources {
  memberships(accountId: string): Promise<readonly Membership[]>
  /** The longest a cached entry is used (read at each use: tests change it on a running app). */
  ttlMs(): number
  now(): number
}

/** The version stamp of an account document (a missing field counts as 0). */
export const accessVersionOf = (account: object) => {
  const version = 'accessVersion' in account ? account.accessVersion : undefined
  return typeof version === 'number' && Number.isFinite(version) ? version : 0
}

/** Loads access contexts for one app, with that app's cache of memberships. */
export class AccessLoader {
  private readonly cache = new Map<string, CachedMemberships>()

  constructor(private readonly sources: AccessSources) {}

  private ttl() {
    const ttl = this.sources.ttlMs()
    return Number.isFinite(ttl) && ttl >= 0 ? ttl : 30000
  }

  private async read(accountId: string): Promise<Membership[]> {
    const found = await this.sources.memberships(accountId)
    // Frozen: shared by every call of the account (the type stays mutable for the rules that read it).
    return Object.freeze(
      found.map((membership) =>
        Object.freeze({
          ...membership,
          roles: Object.freeze([...membership.roles]),
          privileges: Object.freeze([...membership.privileges])
        })
      )
    ) as unknown as Membership[]
  }

  /**
   * The caller's access context. With the account's version as read for this call (`ACCESS_VERSION`, set by the
   * session check) the memberships come from the cache when their stamp matches; otherwise from the store.
   */
  async load(account: AccessAccount): Promise<AccessContext> {
    const version = account[ACCESS_VERSION]
    const base = { accountId: account.id, admin: account.admin === true }
    if (typeof version !== 'number') return { ...base, memberships: await this.read(account.id) }
    const hit = this.cache.get(account.id)
    const now = this.sources.now()
    if (hit && hit.version === version && now - hit.at < this.ttl())
      return { ...base, memberships: hit.memberships as Membership[] }
    const memberships = await this.read(account.id)
    this.cache.set(account.id, { version, at: now, memberships })
    return { ...base, memberships }
  }

  /** Forgets this process's cached memberships of an account (the store's version stamp covers other processes). */
  forget(accountId: string) {
    this.cache.delete(accountId)
  }

  /** "Is account X a member of O with one of R or P?", asked of the store for a given account. */
  async isMemberWith(accountId: string, organization: string, criteria: MemberCriteria = {}) {
    return isMemberWith(await this.load({ id: accountId }), organization, criteria)
  }
}

/** The app's access loader, for hooks and channels (set by the composition root before the first call). */
export const accessLoaderSlot = appSlot<AccessLoader>('access loader')

/** The caller's access context, for code that only has the app (hooks, channels): the app's loader. */
export const loadAccessContext = (app: Application, account: AccessAccount): Promise<AccessContext> =>
  accessLoaderSlot.require(app).load(account)

export interface MemberCriteria {
  roles?: string[]
  privileges?: string[]
  superadmin?: boolean
}

/** Ids of the organizations the caller belongs to. */
export const organizationIds = (access: AccessContext) => access.memberships.map((m) => m.organization)

/** Ids of the organizations in which the caller is a superadmin. */
export const superadminOf = (access: AccessContext) =>
  access.memberships.filter((m) => m.superadmin).map((m) => m.organization)

/**
 * Is the caller a member of `organization` holding one of `roles` or one of `privileges`?
 * With neither list given (or both empty), every membership matches.
 */
export const isMemberWith = (
  access: AccessContext,
  organization: string,
  criteria: MemberCriteria = {}
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

/** The same question asked of the store for an account: "is account X a member of O with one of R or P?" */
export const accountIsMemberWith = (
  app: Application,
  accountId: string,
  organization: string,
  criteria: MemberCriteria = {}
) => accessLoaderSlot.require(app).isMemberWith(accountId, organization, criteria)
