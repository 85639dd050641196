// Who manages a facility's notification settings and templates: its superadmins and the members holding the
// `notifications` privilege (src/notifications/access.ts). Both are facility configuration, not patient data: the
// facility's members read them (a plain member's write is a 403); anyone else gets a 404.
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { AccessContext } from '../access/context'
import { organizationIds } from '../access/context'
import { notificationFacilities } from './access'

/** Read rule of settings and templates: the facility's members. */
export const notificationConfigReadScope = (access: AccessContext) => ({
  facility: { $in: organizationIds(access) }
})

/** Write rule of settings and templates: the facility's notification managers. */
export const notificationConfigWriteScope = (access: AccessContext) => ({
  facility: { $in: notificationFacilities(access) }
})

/** A write about `facility` (a create, a preview): a stranger gets 404, a member who does not manage it 403. */
export const checkNotificationManager = (access: AccessContext, facility: unknown, what = 'facility') => {
  if (typeof facility !== 'string' || !organizationIds(access).includes(facility))
    throw new NotFound(`No ${what} found for id '${String(facility)}'`)
  if (!notificationFacilities(access).includes(facility))
    throw new Forbidden("Managing notifications needs the 'notifications' privilege or superadmin")
}
