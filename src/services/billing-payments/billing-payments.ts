// Billing payments: money received against one item, on a draft or finalized invoice alike. An item may
// have several payments, and their sum never exceeds the item's price × quantity — under every concurrency,
// on either engine (src/billing/payments.ts): the payment that would cross it is a 409 naming the remaining
// balance. Recording, changing, finalizing and voiding payments need the billing privilege or superadmin;
// members read them. A wrong payment is voided (PATCH { void: true, voidReason }: it stays, marked voided, and
// no longer counts as paid; src/billing/void.ts); payments are deleted only with their item or invoice.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { invoiceChildAudit } from '../../billing/audit'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { externalView } from '../../schema/external'
import { billingScope, facilityOwned, facilityScope, isMember, requireBilling } from '../../billing/access'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { orNull } from '../../billing/store-calls'
import { checkBillingValues } from '../../hooks/check-billing-values'
import { BillingPaymentService } from './billing-payments.class'
import {
  paymentDataSchema,
  paymentExternalResolver,
  paymentPatchSchema,
  paymentQuerySchema
} from './billing-payments.schema'
import { billingPaymentMethods, billingPaymentPath } from './billing-payments.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [billingPaymentPath]: BillingPaymentService
  }
}

export const billingPayments = (app: Application, deps: Deps) => {
  app.use(billingPaymentPath, new BillingPaymentService(app, deps), {
    methods: [...billingPaymentMethods],
    events: []
  })
  app.service(billingPaymentPath).populatable = true

  defineAccess(app, billingPaymentPath, {
    // A payment whose recording is still in progress (`pending`) is not shown.
    read: (access) => ({ ...facilityScope(access), status: { $in: ['draft', 'finalized', 'voided'] } }),
    write: (access) => billingScope(access, deps.settings.get('billing').privilege),
    // Recording a payment needs the billing privilege (or superadmin) in the item's facility; an item of
    // another facility is a 404.
    create: async (access, data) => {
      const item = await orNull(deps.stores.items._get(data.item))
      if (!item || !isMember(access, item.facility))
        throw new NotFound(`No billing item found for id '${data.item}'`)
      requireBilling(access, item.facility, deps.settings.get('billing').privilege, 'Recording a payment')
    },
    ...facilityOwned,
    // A patient's billing documents are in the audit trail (docs/audit-trail.md): the patient is the invoice's.
    audit: invoiceChildAudit(deps.stores)
  })

  const values = checkBillingValues({ type: 'paymentTypes', paymentMethod: 'paymentMethods' }, ['amount'])
  app.service(billingPaymentPath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, billingPaymentPath, paymentExternalResolver)],
      find: [validateQueryWith(paymentQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(paymentQuerySchema), scopeAccess, requireSubscription],
      create: [
        validateBody({ create: paymentDataSchema }),
        values,
        scopeAccess,
        requireSubscription,
        setCreated
      ],
      patch: [
        oneAtATime,
        validateQueryWith(paymentQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: paymentPatchSchema }),
        values
      ]
    }
  })
}
