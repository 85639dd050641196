// One way to announce a change made outside a service method call (cascades, totals, recovery, auth actions,
// jobs): exactly as a service call would announce it — the realtime event to the connections that may read the
// documents, and durable webhook deliveries recorded before this resolves (as src/hooks/record-webhook-events.ts
// does for service calls). Documents go out in their client view — the service's external resolver, the one a
// service call presents with (src/schema/external.ts) — never with secrets.
import type { Application } from '../declarations'
import { recordServiceEvent } from './webhook-queue'
import { presentExternal } from '../schema/external'
import { serviceAt } from '../store'

export type ChangeEvent = 'created' | 'patched' | 'removed'

const methodOf = { created: 'create', patched: 'patch', removed: 'remove' } as const

/** Announces `docs` (one, several, or none) of `path` as `event`. */
export const announceChange = async (app: Application, path: string, event: ChangeEvent, docs: unknown) => {
  const list = await Promise.all(
    (Array.isArray(docs) ? docs : [docs]).filter(Boolean).map((doc) => presentExternal(app, path, doc))
  )
  const service = serviceAt(app, path)
  for (const doc of list) service.emit(event, doc)
  if (app.services.webhooks) await recordServiceEvent(app, path, methodOf[event], list)
}
