// Who is calling: the account, whether it is an application admin, and its organization memberships.
// Loaded once per call (or per realtime connection) and used by every access rule.
import type { Application } from '../declarations'

export interface Membership {
  id: string
  organization: string
  uid: string
  roles: string[]
  privileges: string[]
  superadmin: boolean
}

export interface AccessContext {
  accountId: string
  admin: boolean
  memberships: Membership[]
}

/** Loads the caller's memberships straight from the store (no hooks, no scoping). */
export const loadAccessContext = async (app: Application, account: { id: string; admin?: boolean }): Promise<AccessContext> => {
  const memberships = (await (app.service('organization-members' as any) as any)._find({
    query: { uid: account.id },
    paginate: false
  })) as Membership[]
  return { accountId: account.id, admin: account.admin === true, memberships }
}

/** Ids of the organizations the caller belongs to. */
export const organizationIds = (access: AccessContext) => access.memberships.map((m) => m.organization)

/** Ids of the organizations in which the caller is a superadmin. */
export const superadminOf = (access: AccessContext) => access.memberships.filter((m) => m.superadmin).map((m) => m.organization)

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
  return roles.some((r) => membership.roles.includes(r)) || privileges.some((p) => membership.privileges.includes(p))
}

/** The same question asked of the store for any account: "is account X a member of O with any of R or P?" */
export const accountIsMemberWith = async (
  app: Application,
  accountId: string,
  organization: string,
  criteria: { roles?: string[]; privileges?: string[]; superadmin?: boolean } = {}
) => isMemberWith(await loadAccessContext(app, { id: accountId }), organization, criteria)
