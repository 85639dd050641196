// Ticket numbers: each queue numbers its items 1, 2, 3 … per local day of its facility, restarting each day. The
// counter lives on the queue document (`ticketDay`, `lastTicket`) and moves only by single-document conditional
// updates, atomic on every engine: `$inc` where `ticketDay` is today, else a reset to 1 where it is not — so of
// twenty simultaneous tickets each gets its own number, 1..20, without a read-then-write.
import { NotFound } from '@feathersjs/errors'
import type { Deps } from '../deps'
import { orNull } from '../billing/store-calls'
import { localDay } from '../appointments/zone'
import { facilityTimeZone } from '../appointments/schedules'

/** The facility's local day ("YYYY-MM-DD") now, on the one clock. */
export const facilityToday = async (deps: Pick<Deps, 'stores' | 'clock'>, facilityId: string) =>
  localDay(deps.clock.now(), await facilityTimeZone(deps, facilityId)).date

/**
 * The next ticket of `queueId` for the local day `day`. Steps: 1. `$inc` the counter where its day is `day`;
 * 2. else reset it to 1 where its day is not `day` (the first ticket of the day); 3. if neither matched, another
 * ticket moved the counter between them: again.
 */
export const nextTicket = async (
  deps: Pick<Deps, 'stores'>,
  queueId: string,
  day: string
): Promise<number> => {
  const { queues } = deps.stores
  for (let attempt = 0; attempt < 100; attempt++) {
    const counted = await orNull(
      queues._patch(queueId, { $inc: { lastTicket: 1 } }, { query: { ticketDay: day } })
    )
    if (counted) return counted.lastTicket ?? 1
    const first = await orNull(
      queues._patch(
        queueId,
        { $set: { ticketDay: day, lastTicket: 1 } },
        { query: { ticketDay: { $ne: day } } }
      )
    )
    if (first) return 1
    if (!(await orNull(queues._get(queueId)))) throw new NotFound(`No queue found for id '${queueId}'`)
  }
  throw new Error(`No ticket could be issued for queue ${queueId}`)
}
