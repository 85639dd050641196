// Subscriptions: what a facility pays for and may use (docs/subscriptions.md). One live
// subscription per facility (`GET /subscriptions?facility=<id>`; the organization carries its id as
// `subscription`). POST { facility, package, trial? } by the facility's superadmin (409 while one is live);
// PATCH { package } changes the package, { <feature>: true|false } toggles a feature, { status, reason? } cancels
// (a superadmin) or changes the status (application admins only; 403 for anyone else); a canceled or
// incomplete_expired subscription is final (409). Members of the facility read it; others: 404. The rules are in
// src/subscriptions/ (lifecycle, the time-driven pass, the status effects on facility data, checkout pages).
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { isMemberWith, organizationIds, superadminOf } from '../../access/context'
import { scopeAccess } from '../../hooks/scope-access'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { externalView } from '../../schema/external'
import { checkoutPages } from '../../subscriptions/checkout-page'
import { SubscriptionService } from './subscriptions.class'
import {
  subscriptionDataSchema,
  subscriptionExternalResolver,
  subscriptionPatchSchema,
  subscriptionQuerySchema
} from './subscriptions.schema'
import { subscriptionMethods, subscriptionPath } from './subscriptions.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [subscriptionPath]: SubscriptionService
  }
}

export const subscriptions = (app: Application, deps: Deps) => {
  // Built now so a bad PROCESSOR / STRIPE_* setting fails at start-up.
  deps.providers.processor()
  app.use(subscriptionPath, new SubscriptionService(app, deps), {
    methods: [...subscriptionMethods],
    events: []
  })
  // The sandbox processor's checkout pages (GET /processor/sandbox/checkout/:session, its Pay and Fail forms).
  app.use(checkoutPages(deps))

  defineAccess(app, subscriptionPath, {
    read: (access) => (access.admin ? null : { facility: { $in: organizationIds(access) } }),
    write: (access) => (access.admin ? null : { facility: { $in: superadminOf(access) } }),
    // The facility's superadmins subscribe it (a member without that: 403; an organization the caller is not in: 404).
    create: (access, data) => {
      if (access.admin) return
      if (!isMemberWith(access, data.facility))
        throw new NotFound(`No organization found for id '${data.facility}'`, {
          errors: [{ field: 'facility', message: 'is not an organization you are a member of' }]
        })
      if (!superadminOf(access).includes(data.facility))
        throw new Forbidden('Only a superadmin of the facility may subscribe it')
    },
    audience: (doc) => [`organizations/${doc.facility}`],
    organizations: (doc) => [doc.facility]
  })

  app.service(subscriptionPath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, subscriptionPath, subscriptionExternalResolver)],
      find: [validateQueryWith(subscriptionQuerySchema), scopeAccess],
      get: [validateQueryWith(subscriptionQuerySchema), scopeAccess],
      create: [validateBody({ create: subscriptionDataSchema }), scopeAccess],
      patch: [
        validateQueryWith(subscriptionQuerySchema),
        scopeAccess,
        validateBody({ patch: subscriptionPatchSchema })
      ]
    }
  })
}
