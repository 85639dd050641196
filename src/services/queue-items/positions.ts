// Live positions: a waiting item's `position` is computed at each read (the external resolver, from the queue's
// waiting items), so when an item leaves the waiting, the position of each item behind it changes without a write.
// Each of those is then sent as `patched` to the connections that may read it (its patient, the staff) — realtime
// only: the stored items did not change, so no webhook or change record is made for them.
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { resolve } from '@feathersjs/schema'
import type { ResolverContext } from '../../schema/resolvers'
import { presentExternal } from '../../schema/external'
import { positionIn, waitingBehind, waitingOf, type StoredQueueItem } from '../../queues/items'
import { queueItemInternals } from './queue-items.schema'
import { queueItemPath } from './queue-items.shared'

type Waiting = Awaited<ReturnType<typeof waitingOf>>

// The waiting items of each queue, loaded once per call (a find presents many items of one queue).
const waitingByCall = new WeakMap<object, Map<string, Promise<Waiting>>>()

const waitingFor = (deps: Deps, context: object, queue: string) => {
  let byQueue = waitingByCall.get(context)
  if (!byQueue) waitingByCall.set(context, (byQueue = new Map()))
  let waiting = byQueue.get(queue)
  if (!waiting) byQueue.set(queue, (waiting = waitingOf(deps, queue)))
  return waiting
}

/** The client view of queue items: without the appointment key, with `position` while waiting (else absent). */
export const queueItemExternalResolver = (deps: Deps) =>
  resolve<StoredQueueItem, ResolverContext>({
    ...Object.fromEntries(queueItemInternals.map((field) => [field, async () => undefined])),
    // (a `$select` leaving out `status` or `queue` leaves out the position too)
    position: async (_value, item, context) =>
      item.status === 'waiting' && typeof item.queue === 'string'
        ? positionIn(await waitingFor(deps, context, item.queue), item)
        : undefined
  })

/** Sends `patched` (realtime only) for each waiting item behind `item`, with its new position. */
export const announcePositionsBehind = async (app: Application, deps: Deps, item: StoredQueueItem) => {
  const service = app.service(queueItemPath)
  for (const behind of await waitingBehind(deps, item)) {
    service.emit('patched', await presentExternal(app, queueItemPath, behind))
  }
}

/**
 * Announces an item that left the waiting outside a /queue-items call (`$callNext`) as a call would (realtime,
 * webhooks), then the new positions behind it; answers the item's client view.
 */
export const announceItemLeftWaiting = async (app: Application, deps: Deps, item: StoredQueueItem) => {
  await deps.announce(queueItemPath, 'patched', item)
  await announcePositionsBehind(app, deps, item)
  return presentExternal(app, queueItemPath, item)
}
