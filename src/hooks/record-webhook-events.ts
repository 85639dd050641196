// Webhooks must see every change of every service: a ResourceService announces its writes on the app's bus, whose
// subscriber records the deliveries (src/jobs/webhook-recorder.ts); this hook does the same for the services that
// do not yet (transition): after a successful create/update/patch/remove (external or internal), the resulting
// documents — as clients see them, without secrets — become durable webhook deliveries before the call returns.
import type { HookContext, NextFunction } from '../declarations'
import { depsSlot } from '../deps'
import { announcesOwnWrites } from '../jobs/announce'
import { recordServiceEvent } from '../jobs/webhook-queue'
import { isEventMethod, WEBHOOK_SERVICE_PATHS } from '../jobs/webhook-topics'

export const recordWebhookEvents = async (context: HookContext, next: NextFunction) => {
  await next()
  if (!isEventMethod(context.method) || announcesOwnWrites(context.self)) return
  if (WEBHOOK_SERVICE_PATHS.includes(context.path) || !context.app.services.webhooks) return
  // `dispatch` is what clients receive (the service's external resolver, src/schema/external.ts).
  const result: unknown = context.dispatch ?? context.result
  const docs = (Array.isArray(result) ? result : [result]).filter(
    (doc): doc is Record<string, unknown> => !!doc && typeof doc === 'object' && !Array.isArray(doc)
  )
  await recordServiceEvent(context.app, depsSlot.require(context.app), context.path, context.method, docs)
}
