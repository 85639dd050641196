// Webhook deliveries carry documents: a delivery of an audited service's event (`<service>.<method>`) discloses
// patient data twice over — to its webhook's receiver, and to whoever reads the delivery (GET /webhook-events).
// Both are audit events under the service and id of the document, with its patient and facility:
// - the delivery to the receiver: once per delivery, recorded before its first attempt is sent (whatever the
//   attempt's outcome: the receiver may have read the body even when it answered an error), `via: 'webhook'`,
//   the webhook as `webhook`, its account (an account's webhook) or null (an organization's) as actor, the delivery
//   id (the `webhook-id` header) as request id;
// - a read of deliveries: one event per (service, patient, facility, webhook) of the payloads read, with the
//   reader's circumstances and the webhook as `webhook`.
import type { Application } from '../declarations'
import { accessRules, type AuditDeclaration } from '../access/rules'
import type { AuditEntry } from './chain'
import { entriesFor, isObject } from './entries'
import type { AuditLog } from './log'

/** What the audit needs of a delivery. */
export interface DeliveryDoc {
  id: string
  webhook: string
  event: string
  payloadJson?: string
}

/** The audited service of a delivery's event and the document it carries (undefined when it carries no patient data). */
export const auditedPayload = (
  app: Application,
  delivery: DeliveryDoc
): { service: string; declaration: AuditDeclaration; doc: Record<string, unknown> } | undefined => {
  const dot = typeof delivery.event === 'string' ? delivery.event.lastIndexOf('.') : -1
  if (dot <= 0 || typeof delivery.payloadJson !== 'string') return undefined
  const service = delivery.event.slice(0, dot)
  const declaration = accessRules(app, service)?.audit
  if (!declaration) return undefined
  try {
    const doc: unknown = JSON.parse(delivery.payloadJson)
    return isObject(doc) ? { service, declaration, doc } : undefined
  } catch {
    return undefined
  }
}

/** The audit events of a read of `deliveries` by a caller (`base`: actor and circumstances). */
export const deliveryReadEntries = async (
  app: Application,
  base: Omit<AuditEntry, 'ids' | 'service'>,
  deliveries: DeliveryDoc[]
) => {
  const groups = new Map<
    string,
    { service: string; webhook: string; declaration: AuditDeclaration; docs: Record<string, unknown>[] }
  >()
  for (const delivery of deliveries) {
    const payload = auditedPayload(app, delivery)
    if (!payload) continue
    const key = JSON.stringify([payload.service, delivery.webhook])
    let group = groups.get(key)
    if (!group)
      groups.set(
        key,
        (group = {
          service: payload.service,
          webhook: delivery.webhook,
          declaration: payload.declaration,
          docs: []
        })
      )
    group.docs.push(payload.doc)
  }
  const entries: AuditEntry[] = []
  for (const group of groups.values()) {
    entries.push(
      ...(await entriesFor(
        app,
        group.declaration,
        { ...base, service: group.service, webhook: group.webhook },
        group.docs
      ))
    )
  }
  return entries
}

/**
 * Records the delivery of `delivery` to its webhook's receiver in `log`; resolves with false when there is nothing
 * to record (no patient data, or the audit trail is off). Rejects when it cannot be recorded: the attempt must then
 * not be sent. (`app`: the access rules' registry, which says which services are audited.)
 */
export const recordWebhookDelivery = async (
  app: Application,
  log: AuditLog,
  delivery: DeliveryDoc,
  webhook: { id: string; account?: string }
) => {
  const payload = auditedPayload(app, delivery)
  if (!log.settings.enabled || !payload) return false
  const base: Omit<AuditEntry, 'ids'> = {
    at: log.now(),
    actor: typeof webhook.account === 'string' ? webhook.account : null,
    action: 'read',
    service: payload.service,
    outcome: 'allowed',
    status: 200,
    requestId: delivery.id,
    via: 'webhook',
    webhook: webhook.id
  }
  await log.append(await entriesFor(app, payload.declaration, base, [payload.doc]))
  return true
}
