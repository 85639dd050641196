// Webhooks must see every change of every service, present and future, without per-service code: after any
// successful create/update/patch/remove (external or internal), the resulting documents — as clients see
// them, without secrets — become durable webhook deliveries before the call returns (src/jobs/webhook-queue.ts).
import type { HookContext, NextFunction } from '../declarations'
import { recordServiceEvent } from '../jobs/webhook-queue'
import { EVENT_METHODS, WEBHOOK_SERVICE_PATHS } from '../services/webhooks/webhook-patterns'

export const recordWebhookEvents = async (context: HookContext, next: NextFunction) => {
  await next()
  if (!(EVENT_METHODS as readonly string[]).includes(context.method)) return
  if (WEBHOOK_SERVICE_PATHS.includes(context.path) || !context.app.services.webhooks) return
  // `dispatch` is what clients receive (the service's external resolver, src/schema/external.ts).
  const result = context.dispatch ?? context.result
  const docs = (Array.isArray(result) ? result : [result]).filter(
    (doc) => doc && typeof doc === 'object' && !Array.isArray(doc)
  )
  await recordServiceEvent(context.app, context.path, context.method, docs)
}
