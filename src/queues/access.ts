// Who may see and change queues and their items. Staff of a facility's waiting room are the ones who manage its
// calendar: its superadmins and the members holding the `scheduling` privilege. The facility's members read its
// queues; a queue item (a patient's ticket) is read by the staff and by its patient only.
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { AccessContext } from '../access/context'
import { organizationIds } from '../access/context'
import { orNull } from '../billing/store-calls'
import { schedulingFacilities } from '../appointments/schedules'
import type { QueueData } from '../services/queues/queues.shared'
import type { QueueItemData } from '../services/queue-items/queue-items.shared'

/** Is the caller staff of `facility` (an internal call, with no access context, is)? */
export const isQueueStaff = (access: AccessContext | undefined, facility: string) =>
  !access || schedulingFacilities(access).includes(facility)

/** Read rule of queues: the facility's members. */
export const queueReadScope = (access: AccessContext) => ({ facility: { $in: organizationIds(access) } })

/** Write rule of queues: the facility's staff. */
export const queueWriteScope = (access: AccessContext) => ({
  facility: { $in: schedulingFacilities(access) }
})

/** Create rule of queues: a stranger to the facility gets 404, a member who is not staff 403. */
export const checkQueueCreate = (access: AccessContext, data: QueueData) => {
  if (!organizationIds(access).includes(data.facility))
    throw new NotFound(`No facility found for id '${data.facility}'`)
  if (!schedulingFacilities(access).includes(data.facility))
    throw new Forbidden("Managing queues needs the 'scheduling' privilege or superadmin")
}

/** Read and write rule of queue items: the facility's staff, and the patient for their own items. */
export const queueItemScope = (access: AccessContext) => ({
  $or: [{ facility: { $in: schedulingFacilities(access) } }, { patient: access.accountId }]
})

/** Create rule of queue items: staff of the queue's facility; a member who is not staff 403; anyone else 404. */
export const checkQueueItemCreate = async (
  deps: Pick<Deps, 'stores'>,
  access: AccessContext,
  data: QueueItemData
) => {
  const queue = typeof data.queue === 'string' ? await orNull(deps.stores.queues._get(data.queue)) : null
  if (!queue || !organizationIds(access).includes(queue.facility))
    throw new NotFound(`No queue found for id '${String(data.queue)}'`)
  if (!isQueueStaff(access, queue.facility))
    throw new Forbidden("Adding to a queue needs the 'scheduling' privilege or superadmin")
}
