// One way to announce a change made outside a service method call (cascades, totals, recovery, auth actions,
// jobs): exactly as a service call would announce it — the realtime event to the connections that may read the
// documents, in their client view (the service's external resolver; never with secrets), and `record.changed` on
// the app's bus (id null, fresh notes), whose subscribers (webhook deliveries, directory upkeep, the audit of
// privilege changes) finish before this resolves. The composition root hands it to the domain as `deps.announce`.
import type { Application } from '../declarations'
import type { Announce } from '../deps'
import type { ChangeMethod, EventBus, EventMap } from '../events'
import { presentExternal } from '../schema/external'
import { serviceByPath } from './by-path'

const methodOf: Record<'created' | 'patched' | 'removed', ChangeMethod> = {
  created: 'create',
  patched: 'patch',
  removed: 'remove'
}

const isDoc = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value)

/** The app's announcer: `docs` (one, several, or none) of `path` as `event`. */
export const createAnnouncer =
  (app: Application, events: EventBus<EventMap>): Announce =>
  async (path, event, docs) => {
    const stored = (Array.isArray(docs) ? docs : [docs]).filter(isDoc)
    const shown = await Promise.all(stored.map((doc) => presentExternal(app, path, doc)))
    const service = serviceByPath(app, path)
    for (const doc of shown) service.emit(event, doc)
    if (stored.length === 0) return
    await events.emit('record.changed', {
      path,
      method: methodOf[event],
      id: null,
      notes: new Map<string, unknown>(),
      docs: stored
    })
  }
