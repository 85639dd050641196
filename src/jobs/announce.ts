// One way to announce a change made outside a service method call (cascades, totals, recovery, auth actions,
// jobs): exactly as a service call would announce it — the realtime event to the connections that may read the
// documents, in their client view (the service's external resolver, src/schema/external.ts; never with secrets),
// and `record.changed` on the app's bus (id null, fresh notes), whose subscribers (webhook deliveries, directory
// upkeep, the audit of privilege changes) finish before this resolves. This is the announcer `deps.announce` wraps
// (src/app.ts): it is bound to the app, whose services emit the realtime events.
import type { Application } from '../declarations'
import { depsSlot } from '../deps'
import type { ChangeMethod, ChangeName } from '../events'
import { presentExternal } from '../schema/external'
import { serviceAt } from '../store'

export type ChangeEvent = Extract<ChangeName, 'created' | 'patched' | 'removed'>

const methodOf: Record<ChangeEvent, ChangeMethod> = { created: 'create', patched: 'patch', removed: 'remove' }

const isDoc = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value)

/** Announces `docs` (one, several, or none) of `path` as `event`. */
export const announceChange = async (app: Application, path: string, event: ChangeEvent, docs: unknown) => {
  const stored = (Array.isArray(docs) ? docs : [docs]).filter(isDoc)
  const shown = await Promise.all(stored.map((doc) => presentExternal(app, path, doc)))
  const service = serviceAt(app, path)
  for (const doc of shown) service.emit(event, doc)
  if (stored.length === 0) return
  await depsSlot.require(app).events.emit('record.changed', {
    path,
    method: methodOf[event],
    id: null,
    notes: new Map<string, unknown>(),
    docs: stored
  })
}

/**
 * Whether a service announces its own writes on the bus (a ResourceService: every write goes through `write`).
 * The app-wide hooks that predate the bus skip those, so a write is recorded once (transition: they go once every
 * service is a ResourceService).
 */
export const announcesOwnWrites = (service: unknown): boolean =>
  isDoc(service) && 'deps' in service && typeof (service as { write?: unknown }).write === 'function'
