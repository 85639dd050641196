// Who reads notifications: the facility's superadmins and members holding the `notifications` privilege (who also
// manage its notification settings and templates), and the patient told.
import type { AccessContext } from '../access/context'

/** The membership privilege that lets a member manage the facility's notifications. */
export const NOTIFICATIONS_PRIVILEGE = 'notifications'

/** Facilities whose notifications the caller manages: superadmin or the `notifications` privilege. */
export const notificationFacilities = (access: AccessContext) =>
  access.memberships
    .filter((m) => m.superadmin || (m.privileges ?? []).includes(NOTIFICATIONS_PRIVILEGE))
    .map((m) => m.organization)

/** Read rule of the log: the facility's notification managers, and the recipient. */
export const notificationReadScope = (access: AccessContext) => ({
  $or: [{ facility: { $in: notificationFacilities(access) } }, { recipient: access.accountId }]
})
