// /webhook-events: POST registers a webhook (organization or account, url, events, active) or queues a ping
// ({ webhook, event: "ping" }); GET lists a webhook's deliveries with their status, attempts and last
// response; PATCH { retry: true } retries a failed delivery. Only the webhook's owner sees or touches them.
// Reads of deliveries whose payloads are patient data are in the audit trail (src/audit/webhooks.ts).
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { webhookOwnerChannels, webhookOwnerQuery } from '../webhooks/webhooks'
import { WebhookEventsService, isPingBody } from './webhook-events.class'
import { deliveryExternalResolver, deliveryQuerySchema, retrySchema } from './webhook-events.schema'
import { webhookEventMethods, webhookEventPath } from './webhook-events.shared'
import { externalView } from '../../schema/external'
import { recordDeliveryReads } from '../../hooks/record-delivery-reads'

declare module '../../declarations' {
  interface ServiceTypes {
    [webhookEventPath]: WebhookEventsService
  }
}

// A registration is announced by the `webhooks` service's own `created` event (without the secret); only a
// queued ping is a `created` event of this service.
const announceOnlyPings = async (context: HookContext, next: NextFunction) => {
  const ping = isPingBody(context.data)
  await next()
  if (!ping) context.event = null
}

export const webhookEvents = (app: Application, deps: Deps) => {
  app.use(webhookEventPath, new WebhookEventsService(app, deps), {
    methods: [...webhookEventMethods],
    events: []
  })

  defineAccess(app, webhookEventPath, {
    read: webhookOwnerQuery,
    // A POST here is checked as the caller by what it reaches: a registration by the `webhooks` create rule,
    // a ping by reading its webhook (someone else's webhook is a 404).
    create: () => undefined,
    audience: webhookOwnerChannels
  })

  app.service(webhookEventPath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, webhookEventPath, deliveryExternalResolver)],
      find: [recordDeliveryReads, validateQueryWith(deliveryQuerySchema), scopeAccess, requireSubscription],
      get: [recordDeliveryReads, validateQueryWith(deliveryQuerySchema), scopeAccess, requireSubscription],
      create: [scopeAccess, requireSubscription, announceOnlyPings],
      patch: [
        recordDeliveryReads,
        validateQueryWith(deliveryQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: retrySchema })
      ]
    }
  })
}
