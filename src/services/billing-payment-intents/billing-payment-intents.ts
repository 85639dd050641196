// Payment intents: pay through a gateway (sandbox, PayPal) with the payer's approval, then capture.
// POST { gatewayType: '<gateway>-<method>', currency, items, gatewayReturnURL?, gatewayCancelURL?, facility?,
// invoice? } prices the items on the server and answers the intent with netAmount, receivables and
// checkout.approvalURL; the payer approves there; PATCH { capture: true } captures an approved intent (and,
// with an invoice, records its billing payments). Rules and states: src/billing/intents.ts.
// Who: an intent with `facility` belongs to that facility — members with the billing privilege (or
// superadmins) create and capture it, its members read it; an intent without `facility` belongs to the account
// that created it, which alone reads and captures it. Everyone else: 404. POST and capture accept an
// Idempotency-Key header (src/hooks/idempotency-key.ts).
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { BadRequest, NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { organizationIds } from '../../access/context'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { idempotencyKey } from '../../hooks/idempotency-key'
import { idempotencyStore } from '../../billing/idempotency'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { billingFacilities, requireBilling } from '../../billing/access'
import { invoiceChildAudit } from '../../billing/audit'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { externalView } from '../../schema/external'
import { billingSettings } from '../../billing/settings'
import { orNull } from '../../billing/store-calls'
import { BillingPaymentIntentService } from './billing-payment-intents.class'
import { checkoutPages } from './checkout-page'
import {
  intentDataSchema,
  intentExternalResolver,
  intentFindQuerySchema,
  intentPatchSchema,
  intentQuerySchema
} from './billing-payment-intents.schema'
import { billingPaymentIntentMethods, billingPaymentIntentPath } from './billing-payment-intents.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [billingPaymentIntentPath]: BillingPaymentIntentService
  }
}

export const billingPaymentIntents = (app: Application, deps: Deps) => {
  // Checked now so a bad GATEWAYS / GATEWAY_* setting fails at start-up.
  deps.providers.gatewaySettings()
  idempotencyStore(app)
  app.use(billingPaymentIntentPath, new BillingPaymentIntentService(app, deps), {
    methods: [...billingPaymentIntentMethods],
    events: []
  })
  app.use(checkoutPages(deps))
  const privilege = billingSettings(app).privilege

  defineAccess(app, billingPaymentIntentPath, {
    read: (access) => ({
      $or: [{ facility: { $in: organizationIds(access) } }, { facility: null, account: access.accountId }]
    }),
    write: (access) => ({
      $or: [
        { facility: { $in: billingFacilities(access, privilege) } },
        { facility: null, account: access.accountId }
      ]
    }),
    // A facility's intent needs its billing privilege (or superadmin); an invoice must be one of that facility.
    create: async (access, data) => {
      if (data.facility !== undefined)
        requireBilling(access, data.facility, privilege, 'Creating a payment intent')
      if (data.invoice !== undefined) {
        const invoice = await orNull(deps.stores.invoices._get(data.invoice))
        if (!invoice || invoice.deleting || !organizationIds(access).includes(invoice.facility))
          throw new NotFound(`No billing invoice found for id '${data.invoice}'`)
        if (invoice.facility !== data.facility)
          throw new BadRequest(
            `Invalid data: 'invoice' belongs to facility ${invoice.facility}; send it as 'facility'`,
            { errors: [{ field: 'invoice', message: 'belongs to another facility than the intent' }] }
          )
      }
    },
    audience: (doc) => (doc.facility ? [`organizations/${doc.facility}`] : [`accounts/${doc.account}`]),
    organizations: (doc) => (doc.facility ? [doc.facility] : []),
    // An intent paying a patient's invoice is in the audit trail with that patient (docs/audit-trail.md).
    audit: invoiceChildAudit(deps.stores)
  })

  app.service(billingPaymentIntentPath).hooks({
    around: {
      all: [
        populate,
        authenticate('jwt'),
        externalView(app, billingPaymentIntentPath, intentExternalResolver)
      ],
      find: [validateQueryWith(intentFindQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(intentQuerySchema), scopeAccess, requireSubscription],
      create: [
        validateBody({ create: intentDataSchema }),
        scopeAccess,
        requireSubscription,
        idempotencyKey,
        setCreated
      ],
      patch: [
        oneAtATime,
        validateQueryWith(intentQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: intentPatchSchema }),
        idempotencyKey
      ]
    }
  })
}
