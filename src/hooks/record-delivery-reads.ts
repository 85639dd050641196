// Exists so that reading webhook deliveries (GET /webhook-events) whose payloads are patient data is in the audit
// trail, with the patients of those payloads (src/audit/webhooks.ts), durably before the answer is sent. The
// payloads are read from the stored deliveries whatever the call's `$select` says.
import type { HookContext, NextFunction } from '../declarations'
import { auditLog } from '../audit/log'
import { callCircumstances, docsOf, idString, isObject } from '../audit/entries'
import { deliveryReadEntries, type DeliveryDoc } from '../audit/webhooks'
import type { StoreService } from '../store'
import { logger } from '../logger'

export const recordDeliveryReads = async (context: HookContext, next: NextFunction) => {
  const log = context.params.provider ? auditLog(context.app) : undefined
  if (!log || !log.settings.enabled) return next()
  const at = log.now()
  const selected = isObject(context.params.query) && context.params.query.$select !== undefined
  await next()
  let deliveries = docsOf(context.result) as unknown as DeliveryDoc[] // (cast: this service's results are deliveries)
  if (selected && deliveries.length > 0) {
    // A `$select` may have left the event or the payload out: the stored deliveries say what was read.
    const store: StoreService<DeliveryDoc> = context.service.deliveries
    const ids = deliveries.map((delivery) => delivery.id)
    deliveries = (await store._find({
      query: { id: { $in: ids }, $select: ['id', 'webhook', 'event', 'payloadJson'] },
      paginate: false
    })) as DeliveryDoc[]
  }
  const base = {
    at,
    actor: idString(context.params.account?.id) ?? null,
    action: 'read' as const,
    outcome: 'allowed' as const,
    status: 200,
    ...callCircumstances(context.params)
  }
  const entries = await deliveryReadEntries(context.app, base, deliveries)
  try {
    await log.append(entries)
  } catch (error) {
    // A read that cannot be recorded is not answered as if it had been.
    logger.error(`Audit append failed for ${context.path}.${context.method}:`, error)
    throw error
  }
}
