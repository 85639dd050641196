// Names for people, not ids: what a calendar, a booking form and "who accessed my record" show. Each reader of an
// appointment or schedule is entitled to know who the other party is, so the answers carry the provider's, the
// patient's and the facility's display names — the account's first and last name (never its email or phone) and
// the organization's name. An audit event about a patient carries its actor's display name and role (their role
// in the event's facility), nothing more of the actor. Looked up once per answer (a cache per call).
import type { Deps } from '../deps'
import { orNull } from '../billing/store-calls'

export type NameDeps = Pick<Deps, 'stores'>

/** The display name of an account: its first, middle and last names; null when it has none (or is gone). */
export const displayName = (
  account: { firstName?: string; middleName?: string; lastName?: string } | null
): string | null => {
  if (!account) return null
  const name = [account.firstName, account.middleName, account.lastName]
    .map((part) => part?.trim())
    .filter((part): part is string => Boolean(part))
    .join(' ')
  return name.length > 0 ? name : null
}

/** One answer's look-ups: each account, organization and membership read at most once. */
export class NameCache {
  private readonly accounts = new Map<string, Promise<string | null>>()
  private readonly admins = new Map<string, Promise<boolean>>()
  private readonly organizations = new Map<string, Promise<{ name: string; timeZone: string } | null>>()
  private readonly roles = new Map<string, Promise<string | null>>()

  constructor(readonly deps: NameDeps) {}

  private account(id: string) {
    return orNull(this.deps.stores.accounts._get(id))
  }

  person(id: string): Promise<string | null> {
    let found = this.accounts.get(id)
    if (!found) {
      found = this.account(id).then(displayName)
      this.accounts.set(id, found)
    }
    return found
  }

  organization(id: string) {
    let found = this.organizations.get(id)
    if (!found) {
      found = orNull(this.deps.stores.organizations._get(id)).then((organization) =>
        organization ? { name: organization.name, timeZone: organization.timeZone ?? 'UTC' } : null
      )
      this.organizations.set(id, found)
    }
    return found
  }

  /** The account's role in the facility, in words: "administrator", its first role, or "staff"; null if none. */
  role(account: string, facility: string): Promise<string | null> {
    const key = `${account}:${facility}`
    let found = this.roles.get(key)
    if (!found) {
      found = this.deps.stores.members
        ._find({ query: { organization: facility, uid: account, $limit: 1 }, paginate: false })
        .then((members) => {
          const member = (members as { roles?: string[]; superadmin?: boolean }[])[0]
          if (!member) return null
          if (member.superadmin) return 'administrator'
          return member.roles?.[0] ?? 'staff'
        })
      this.roles.set(key, found)
    }
    return found
  }

  isAdmin(id: string): Promise<boolean> {
    let found = this.admins.get(id)
    if (!found) {
      found = this.account(id).then((account) => account?.admin === true)
      this.admins.set(id, found)
    }
    return found
  }
}

/** The names an appointment or a schedule is shown with. */
export interface PartyNames {
  provider?: string | null
  patient?: string | null
  facility?: string | null
}

/** Adds `names` (and the facility's `timeZone` when absent) to an appointment or a schedule. */
export const withPartyNames = async <T extends { facility?: unknown; provider?: unknown; patient?: unknown }>(
  cache: NameCache,
  doc: T
): Promise<T & { names: PartyNames }> => {
  const names: PartyNames = {}
  if (typeof doc.provider === 'string') names.provider = await cache.person(doc.provider)
  if (typeof doc.patient === 'string') names.patient = await cache.person(doc.patient)
  const extra: { timeZone?: string } = {}
  if (typeof doc.facility === 'string') {
    const organization = await cache.organization(doc.facility)
    names.facility = organization?.name ?? null
    if (!('timeZone' in doc) && organization) extra.timeZone = organization.timeZone
  }
  return { ...doc, ...extra, names }
}

/** What "who accessed my record" shows of an audit event's actor and facility. */
export interface ActorNames {
  actorName?: string | null
  actorRole?: string | null
  facilityName?: string | null
}

/**
 * The actor's display name and role for an audit event: "patient" when the actor is the event's patient, their
 * role in the event's facility when they are a member, "application administrator" for an admin, else null.
 */
export const withActorNames = async <
  T extends { actor?: string | null; patient?: string; facility?: string }
>(
  cache: NameCache,
  event: T
): Promise<T & ActorNames> => {
  const names: ActorNames = { actorName: null, actorRole: null }
  if (event.actor) {
    names.actorName = await cache.person(event.actor)
    if (event.actor === event.patient) names.actorRole = 'patient'
    else if (event.facility) names.actorRole = await cache.role(event.actor, event.facility)
    if (!names.actorRole && (await cache.isAdmin(event.actor))) names.actorRole = 'application administrator'
  }
  if (event.facility) names.facilityName = (await cache.organization(event.facility))?.name ?? null
  return { ...event, ...names }
}
