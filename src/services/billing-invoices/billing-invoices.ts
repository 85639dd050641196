// Billing invoices: a facility's bill to a subject (a patient, an HMO…), draft until finalized, with totals
// (total, paid, balance, itemCount) the server keeps right after every item and payment change.
// Members read and create invoices and change drafts; finalizing (PATCH {finalize: true}, which finalizes
// every item too) and removing (which removes the items and their payments, durably) need the billing
// privilege or superadmin.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { invoiceAudit } from '../../billing/audit'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { billingScope, facilityOwned, facilityScope, requireMember } from '../../billing/access'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { externalView } from '../../schema/external'
import { checkBillingValues } from '../../hooks/check-billing-values'
import { BillingInvoiceService } from './billing-invoices.class'
import {
  invoiceDataSchema,
  invoiceExternalResolver,
  invoicePatchSchema,
  invoiceQuerySchema
} from './billing-invoices.schema'
import { billingInvoiceMethods, billingInvoicePath } from './billing-invoices.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [billingInvoicePath]: BillingInvoiceService
  }
}

export const billingInvoices = (app: Application, deps: Deps) => {
  app.use(billingInvoicePath, new BillingInvoiceService(app, deps), {
    methods: [...billingInvoiceMethods],
    events: []
  })
  app.service(billingInvoicePath).populatable = true

  defineAccess(app, billingInvoicePath, {
    read: (access) => ({ ...facilityScope(access), deleting: { $ne: true } }),
    write: (access, method) =>
      method === 'remove'
        ? billingScope(access, deps.settings.get('billing').privilege)
        : facilityScope(access),
    // Members of the facility create its invoices.
    create: (access, data) => requireMember(access, data.facility),
    ...facilityOwned,
    // A patient's billing documents are in the audit trail (docs/audit-trail.md).
    audit: invoiceAudit
  })

  const values = checkBillingValues({ type: 'invoiceTypes', subjectType: 'subjectTypes' })
  app.service(billingInvoicePath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, billingInvoicePath, invoiceExternalResolver)],
      find: [validateQueryWith(invoiceQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(invoiceQuerySchema), scopeAccess, requireSubscription],
      create: [
        validateBody({ create: invoiceDataSchema }),
        values,
        scopeAccess,
        requireSubscription,
        setCreated
      ],
      patch: [
        oneAtATime,
        validateQueryWith(invoiceQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: invoicePatchSchema }),
        values
      ],
      remove: [oneAtATime, validateQueryWith(invoiceQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
