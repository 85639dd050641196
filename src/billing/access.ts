// Who may do what in billing. Every billing document carries `facility` (an organization id):
// - every member of the facility reads its encounters, services, invoices, items and payments, creates and
//   changes encounters, creates invoices, and adds or changes draft items;
// - members holding the billing privilege (config `billing.privilege`, default `billing`) or superadmins of
//   the facility also finalize (encounters, invoices, items, payments), record payments, remove invoices and
//   items, and manage the service catalogue;
// - everyone else (application admins included) gets 404: billing data is private to the facility.
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { AccessContext } from '../access/context'
import { organizationIds } from '../access/context'
import { within } from '../access/rules'

/** Facilities in which the caller may handle money (billing privilege or superadmin). */
export const billingFacilities = (access: AccessContext, privilege: string) =>
  access.memberships
    .filter((m) => m.superadmin || (m.privileges ?? []).includes(privilege))
    .map((m) => m.organization)

export const isMember = (access: AccessContext, facility: string) =>
  organizationIds(access).includes(facility)

export const mayBill = (access: AccessContext, facility: string, privilege: string) =>
  billingFacilities(access, privilege).includes(facility)

/** A facility the caller is not a member of does not exist for them. */
export const requireMember = (access: AccessContext, facility: string) => {
  if (!isMember(access, facility)) throw new NotFound(`No facility found for id '${facility}'`)
}

/** Money operations need the billing privilege (or superadmin) in the facility. */
export const requireBilling = (
  access: AccessContext,
  facility: string,
  privilege: string,
  action: string
) => {
  requireMember(access, facility)
  if (!mayBill(access, facility, privilege)) {
    throw new Forbidden(`${action} needs the '${privilege}' privilege or superadmin in the facility`)
  }
}

/** The read rule shared by every billing service: documents of the caller's facilities. */
export const facilityScope = (access: AccessContext) => ({ facility: { $in: organizationIds(access) } })

/** The money scope: documents of the facilities where the caller holds the billing privilege or is superadmin. */
export const billingScope = (access: AccessContext, privilege: string) => ({
  facility: { $in: billingFacilities(access, privilege) }
})

/**
 * Finalizing needs the billing privilege (or superadmin) in the document's facility: checked against the caller's
 * access (403), and answered as the store scope of the finalizing write (the call's write scope narrowed to the
 * facilities where the caller may bill). An internal call (no access context) has no scope.
 */
export const finalizeScope = (
  access: AccessContext | null,
  writeScope: Query | undefined,
  facility: string,
  privilege: string,
  action: string
): Query | undefined => {
  if (!access) return undefined
  requireBilling(access, facility, privilege, action)
  return within({}, writeScope, billingScope(access, privilege))
}

/** The acting account id of a call (null for internal calls). */
export const actorOf = (params: { account?: { id?: string } }): string | null => params.account?.id ?? null

/** A facility's documents are announced to its members' connections and to its organization webhooks. */
export const facilityOwned = {
  audience: (doc: { facility: string }) => [`organizations/${doc.facility}`],
  organizations: (doc: { facility: string }) => [doc.facility]
}
