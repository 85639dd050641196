// Webhooks: installed on an organization (by its superadmins) or on an account (by that account), created
// through POST /webhook-events and managed here. Only their owner reads, changes or removes them; the
// signing secret is shown once, in the creation response, and never in any read or event.
import { authenticate } from '@feathersjs/authentication'
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import { defineAccess } from '../../access/rules'
import { isMemberWith, superadminOf, type AccessContext } from '../../access/context'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { invalid, validateBody, validateQueryWith, type FieldError } from '../../schema/validators'
import { generateWebhookSecret } from '../../providers/webhook-http'
import { webhookSettings } from '../../jobs/webhook-settings'
import { deliveryStore, wakeWebhook } from '../../jobs/webhook-queue'
import { createWebhookService, type WebhookService } from './webhooks.class'
import { webhookDataSchema, webhookInternals, webhookPatchSchema, webhookQuerySchema } from './webhooks.schema'
import { webhookMethods, webhookPath } from './webhooks.shared'
import { parseEventPatterns } from './webhook-patterns'
import { checkWebhookUrl } from './webhook-url'

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
export const webhookOwnerChannels = (doc: any) => (doc.organization ? [`organizations/${doc.organization}`] : [`accounts/${doc.account}`])

const omit = (doc: any, fields: string[]) => {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return doc
  const copy = { ...doc }
  for (const field of fields) delete copy[field]
  return copy
}
const omitAll = (result: any, fields: string[]) =>
  Array.isArray(result) ? result.map((doc) => omit(doc, fields)) : Array.isArray(result?.data) ? { ...result, data: result.data.map((doc: any) => omit(doc, fields)) } : omit(result, fields)

// The secret leaves the server once: in the result of `create` (the response to POST /webhook-events);
// events and every other result never carry it, nor the worker's schedule fields.
const hideWebhookInternals = async (context: HookContext, next: NextFunction) => {
  await next()
  if (context.result === undefined) return
  context.dispatch = omitAll(context.dispatch ?? context.result, webhookInternals)
  const keep = context.method === 'create' ? webhookInternals.filter((field) => field !== 'secret') : webhookInternals
  if (context.params.provider || context.method === 'create') context.result = omitAll(context.result, keep)
}

// Checks owner, URL and event patterns (one 400 naming every problem) and adds the server-owned fields.
const prepareWebhook = async (context: HookContext, next: NextFunction) => {
  const { organization, account, url, events, active } = context.data
  const settings = webhookSettings(context.app)
  const errors: FieldError[] = []
  if (!organization === !account) {
    const message = organization ? 'cannot be given together with the other (a webhook belongs to an organization or an account)' : 'one of organization or account is required'
    errors.push({ field: 'organization', message }, { field: 'account', message })
  }
  errors.push(...(await checkWebhookUrl(url, settings.allowPrivate)))
  const parsed = parseEventPatterns(context.app, events)
  errors.push(...parsed.errors)
  if (errors.length) throw invalid('webhook', errors)
  context.data = {
    ...(organization ? { organization } : { account }),
    url,
    events: parsed.events,
    topics: parsed.topics,
    active: active !== false,
    secret: generateWebhookSecret(),
    consecutiveFailures: 0,
    dueAt: Date.now() + settings.idleMs,
    queueVersion: 0
  }
  await next()
}

// URL and events are checked as at creation; reactivation clears the failure streak and wakes the queue
// (deliveries paused while inactive go out in order); deactivation by the owner is recorded with a reason.
const prepareWebhookPatch = async (context: HookContext, next: NextFunction) => {
  const existing = context.params.existing ?? (await context.service._get(context.id))
  const settings = webhookSettings(context.app)
  const { url, events, active } = context.data
  const now = Date.now()
  const errors: FieldError[] = []
  const patch: Record<string, any> = { updatedAt: now }
  if (url !== undefined) {
    errors.push(...(await checkWebhookUrl(url, settings.allowPrivate)))
    patch.url = url
  }
  if (events !== undefined) {
    const parsed = parseEventPatterns(context.app, events)
    errors.push(...parsed.errors)
    patch.events = parsed.events
    patch.topics = parsed.topics
  }
  if (errors.length) throw invalid('webhook', errors)
  const reactivating = active === true && existing.active === false
  if (reactivating) {
    Object.assign(patch, { active: true, consecutiveFailures: 0, dueAt: now, $unset: { failingSince: '', lastFailureAt: '', deactivatedAt: '', deactivatedReason: '' }, $inc: { queueVersion: 1 } })
  } else if (active === false && existing.active !== false) {
    Object.assign(patch, { active: false, deactivatedAt: now, deactivatedReason: 'deactivated by its owner' })
  }
  context.data = patch
  await next()
  if (reactivating) await wakeWebhook(context.app, existing.id, now)
}

// A removed webhook's deliveries go with it.
const removeDeliveries = async (context: HookContext, next: NextFunction) => {
  await next()
  await deliveryStore(context.app)._remove(null, { query: { webhook: context.result.id }, adapter: { multi: true } } as any)
}

export const webhooks = (app: Application) => {
  app.use(webhookPath, createWebhookService(app), { methods: [...webhookMethods], events: [] })

  defineAccess(webhookPath, {
    read: webhookOwnerQuery,
    // Only superadmins of the organization (other members 403, anyone else 404), or the account itself (any
    // other account is a 404), install webhooks on it.
    create: (access, data) => {
      const { organization, account } = data
      if (organization) {
        if (!isMemberWith(access, organization)) throw new NotFound(`No organization found for id '${organization}'`)
        if (!isMemberWith(access, organization, { superadmin: true })) throw new Forbidden('Only superadmins of the organization may install its webhooks')
      }
      if (account && account !== access.accountId) throw new NotFound(`No account found for id '${account}'`)
    },
    audience: webhookOwnerChannels
  })

  app.service(webhookPath).hooks({
    around: {
      all: [authenticate('jwt'), hideWebhookInternals],
      find: [validateQueryWith(webhookQuerySchema), scopeAccess],
      get: [validateQueryWith(webhookQuerySchema), scopeAccess],
      create: [validateBody({ create: webhookDataSchema }), scopeAccess, prepareWebhook, setCreated],
      patch: [validateQueryWith(webhookQuerySchema), scopeAccess, validateBody({ patch: webhookPatchSchema }), prepareWebhookPatch],
      remove: [validateQueryWith(webhookQuerySchema), scopeAccess, removeDeliveries]
    }
  })
}
