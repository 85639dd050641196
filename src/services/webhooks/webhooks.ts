// Webhooks: installed on an organization (by its superadmins) or on an account (by that account), created
// through POST /webhook-events and managed here. Only their owner reads, changes or removes them; the
// signing secret is shown once, in the creation response, and never in a read or an event.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { isMemberWith, superadminOf, type AccessContext } from '../../access/context'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { declareChangeAudit, type ChangeAudit } from '../../audit/changes'
import { recordWebhookDeliveries } from '../../jobs/webhook-recorder'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { WebhookService } from './webhooks.class'
import {
  type Webhook,
  webhookDataSchema,
  webhookExternalResolver,
  webhookPatchSchema,
  webhookQuerySchema
} from './webhooks.schema'
import { webhookMethods, webhookPath } from './webhooks.shared'
import { externalView } from '../../schema/external'

declare module '../../declarations' {
  interface ServiceTypes {
    [webhookPath]: WebhookService
  }
}

/** Webhooks (and their deliveries) are read and managed by their owner only: the organization's superadmins, or the account. */
export const webhookOwnerQuery = (access: AccessContext) => ({
  $or: [{ organization: { $in: superadminOf(access) } }, { account: access.accountId }]
})

/** Channels of a webhook's (or delivery's) owner. */
export const webhookOwnerChannels = (doc: { organization?: string; account?: string }) =>
  doc.organization ? [`organizations/${doc.organization}`] : [`accounts/${doc.account}`]

/** Where a webhook sends data: its URL's origin (a path or query may carry the receiver's own token). */
const destination = (url: unknown) => {
  try {
    return new URL(String(url)).origin
  } catch {
    return ''
  }
}

// Registering, changing and removing a webhook are audit events (`webhook-add`, `webhook-change`, `webhook-remove`):
// where data goes (the URL's origin), which events, active or not — never its secret.
const webhookChanges = (deps: Deps): ChangeAudit<Webhook> => ({
  describe: (webhook) => ({
    ...(webhook.account ? { account: webhook.account } : {}),
    ...(webhook.organization ? { facility: webhook.organization } : {}),
    fields: {
      destination: destination(webhook.url),
      events: String(webhook.events ?? ''),
      active: webhook.active !== false
    }
  }),
  actions: { create: 'webhook-add', patch: 'webhook-change', remove: 'webhook-remove' },
  load: (id) => deps.stores.webhooks._get(id)
})

export const webhooks = (app: Application, deps: Deps) => {
  app.use(webhookPath, new WebhookService(app, deps), { methods: [...webhookMethods], events: [] })
  declareChangeAudit(app, webhookPath, webhookChanges(deps))
  // Every service's announced writes become webhook deliveries (src/jobs/webhook-recorder.ts).
  recordWebhookDeliveries(app, deps)

  defineAccess(app, webhookPath, {
    read: webhookOwnerQuery,
    // Only superadmins of the organization (other members 403, anyone else 404), or the account itself (every
    // other account is a 404), install webhooks on it.
    create: (access, data) => {
      const { organization, account } = data
      if (organization) {
        if (!isMemberWith(access, organization))
          throw new NotFound(`No organization found for id '${organization}'`)
        if (!isMemberWith(access, organization, { superadmin: true }))
          throw new Forbidden('Only superadmins of the organization may install its webhooks')
      }
      if (account && account !== access.accountId) throw new NotFound(`No account found for id '${account}'`)
    },
    audience: webhookOwnerChannels
  })

  app.service(webhookPath).hooks({
    around: {
      // The secret leaves the server once: in the response to POST /webhook-events (webhook-events.class.ts);
      // events and every other result never carry it, nor the worker's schedule fields.
      all: [populate, authenticate('jwt'), externalView(app, webhookPath, webhookExternalResolver)],
      find: [validateQueryWith(webhookQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(webhookQuerySchema), scopeAccess, requireSubscription],
      create: [validateBody({ create: webhookDataSchema }), scopeAccess, requireSubscription, setCreated],
      patch: [
        validateQueryWith(webhookQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: webhookPatchSchema })
      ],
      remove: [validateQueryWith(webhookQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
