// Billing invoices: a facility's bill to a subject (a patient, an HMO…), draft until finalized, with totals
// (total, paid, balance, itemCount) the server keeps right after every item and payment change.
// Members read and create invoices and change drafts; finalizing (PATCH {finalize: true}, which finalizes
// every item too) and removing (which removes the items and their payments, durably) need the billing
// privilege or superadmin.
import { authenticate } from '@feathersjs/authentication'
import { Conflict } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import { invoiceAudit } from '../../billing/audit'
import { defineAccess, within } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { billingScope, facilityOwned, facilityScope, requireMember } from '../../billing/access'
import { removeInvoiceCascade } from '../../billing/cascade'
import { finalizeInvoice } from '../../billing/finalize'
import { actorOf, finalizeScope, oneAtATime } from '../../billing/hooks'
import { presentResults } from '../../billing/present'
import { createInvoiceRecord } from '../../billing/records'
import { billingSettings } from '../../billing/settings'
import { orNull, stores } from '../../billing/stores'
import { checkBillingValues } from '../../billing/validate'
import { createInvoiceService, type BillingInvoiceService } from './billing-invoices.class'
import { invoiceDataSchema, invoicePatchSchema, invoiceQuerySchema } from './billing-invoices.schema'
import { billingInvoiceMethods, billingInvoicePath } from './billing-invoices.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [billingInvoicePath]: BillingInvoiceService
  }
}

const createInvoice = async (context: HookContext, next: NextFunction) => {
  context.result = await createInvoiceRecord(context.app, context.data)
  await next()
}

// Changes a draft invoice; with `finalize: true` finalizes it and all its items.
const patchInvoice = async (context: HookContext, next: NextFunction) => {
  const { app } = context
  const { invoices } = stores(app)
  const existing = context.params.existing ?? (await invoices._get(context.id as string))
  const { finalize, ...fields } = context.data
  const notDraft = () => new Conflict(`Billing invoice ${existing.id} is finalized and can no longer be changed`, { invoice: existing.id })
  if (existing.status !== 'draft') throw notDraft()
  if (finalize) {
    const scope = await finalizeScope(context, existing, 'Finalizing an invoice')
    const outcome = await finalizeInvoice(app, existing.id, actorOf(context), undefined, fields, scope)
    context.result = outcome.invoice
    return next()
  }
  const updated = await orNull(invoices._patch(existing.id, { ...fields, updatedAt: Date.now() }, { query: within({ status: 'draft', deleting: { $ne: true } }, context.params.writeScope) }))
  if (!updated) throw notDraft()
  context.result = updated
  await next()
}

// Removes the invoice with its items and their payments (src/billing/cascade.ts).
const removeInvoice = async (context: HookContext, next: NextFunction) => {
  context.result = await removeInvoiceCascade(context.app, context.params.existing?.id ?? (context.id as string), { scope: context.params.writeScope })
  await next()
}

export const billingInvoices = (app: Application) => {
  app.use(billingInvoicePath, createInvoiceService(app), { methods: [...billingInvoiceMethods], events: [] })
  app.service(billingInvoicePath).populatable = true

  defineAccess(billingInvoicePath, {
    read: (access) => ({ ...facilityScope(access), deleting: { $ne: true } }),
    write: (access, method) => (method === 'remove' ? billingScope(access, billingSettings(app).privilege) : facilityScope(access)),
    // Members of the facility create its invoices.
    create: (access, data) => requireMember(access, data.facility),
    ...facilityOwned,
    // A patient's billing documents are in the audit trail (README "Audit trail").
    audit: invoiceAudit
  })

  const values = checkBillingValues({ type: 'invoiceTypes', subjectType: 'subjectTypes' })
  app.service(billingInvoicePath).hooks({
    around: {
      all: [authenticate('jwt'), presentResults(billingInvoicePath)],
      find: [validateQueryWith(invoiceQuerySchema), scopeAccess],
      get: [validateQueryWith(invoiceQuerySchema), scopeAccess],
      create: [validateBody({ create: invoiceDataSchema }), values, scopeAccess, setCreated, createInvoice],
      patch: [oneAtATime, validateQueryWith(invoiceQuerySchema), scopeAccess, validateBody({ patch: invoicePatchSchema }), values, patchInvoice],
      remove: [oneAtATime, validateQueryWith(invoiceQuerySchema), scopeAccess, removeInvoice]
    }
  })
}
