// Who may do what in inventory. Every inventory document carries `facility` (an organization id):
// - every member of the facility reads its variants, stockrooms, stocks and stock movements;
// - members holding the inventory privilege (config `inventory.privilege`, default `inventory`) or superadmins
//   of the facility also create, change, archive and remove variants and stockrooms, create stocks and move
//   stock;
// - everyone else (application admins included) gets 404: a facility's inventory is private to it.
import { Forbidden } from '@feathersjs/errors'
import type { AccessContext } from '../access/context'
import { requireMember } from '../billing/access'

/** Facilities in which the caller manages inventory (inventory privilege or superadmin). */
export const inventoryFacilities = (access: AccessContext, privilege: string) =>
  access.memberships
    .filter((m) => m.superadmin || (m.privileges ?? []).includes(privilege))
    .map((m) => m.organization)

/** The write rule of the inventory services: documents of the facilities where the caller manages inventory. */
export const inventoryScope = (access: AccessContext, privilege: string) => ({
  facility: { $in: inventoryFacilities(access, privilege) }
})

/** Creating in a facility: not a member → 404 (the facility does not exist for them); no privilege → 403. */
export const requireInventory = (
  access: AccessContext,
  facility: string,
  privilege: string,
  action: string
) => {
  requireMember(access, facility)
  if (!inventoryFacilities(access, privilege).includes(facility)) {
    throw new Forbidden(`${action} needs the '${privilege}' privilege or superadmin in the facility`)
  }
}
