// Billing payments: money received against one item, on a draft or finalized invoice alike. An item may
// have several payments, and their sum never exceeds the item's price × quantity — under any concurrency,
// on either engine (src/billing/payments.ts): the payment that would cross it is a 409 naming the remaining
// balance. Recording, changing, finalizing and voiding payments need the billing privilege or superadmin;
// members read them. A wrong payment is voided (PATCH { void: true, voidReason }: it stays, marked voided, and
// no longer counts as paid; src/billing/void.ts); payments are deleted only with their item or invoice.
import { authenticate } from '@feathersjs/authentication'
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import { invoiceChildAudit } from '../../billing/audit'
import { defineAccess, within } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { invalid, validateBody, validateQueryWith } from '../../schema/validators'
import { voidPayment } from '../../billing/void'
import { presentResults } from '../../billing/present'
import { billingScope, facilityOwned, facilityScope, isMember, requireBilling } from '../../billing/access'
import { actorOf, oneAtATime } from '../../billing/hooks'
import { recordPayment } from '../../billing/payments'
import { billingSettings } from '../../billing/settings'
import { orNull, stores } from '../../billing/stores'
import { checkBillingValues } from '../../billing/validate'
import { createPaymentService, type BillingPaymentService } from './billing-payments.class'
import { paymentDataSchema, paymentPatchSchema, paymentQuerySchema } from './billing-payments.schema'
import { billingPaymentMethods, billingPaymentPath } from './billing-payments.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [billingPaymentPath]: BillingPaymentService
  }
}

const createPayment = async (context: HookContext, next: NextFunction) => {
  const { app } = context
  const data = context.data
  const item = await orNull(stores(app).items._get(data.item))
  if (!item || item.deleting) throw new NotFound(`No billing item found for id '${data.item}'`)
  context.result = await recordPayment(app, item, data)
  await next()
}

// Changes a draft payment's details; `finalize: true` finalizes it in the same write; `void: true` voids a
// draft or finalized payment (nothing else may be sent with it but `voidReason`).
const patchPayment = async (context: HookContext, next: NextFunction) => {
  const { payments } = stores(context.app)
  const existing = context.params.existing ?? (await payments._get(context.id as string))
  const { void: voiding, voidReason, ...rest } = context.data
  if (voiding) {
    const extra = Object.keys(rest)
    if (extra.length) throw invalid('data', extra.map((field) => ({ field, message: 'cannot be changed together with void' })))
    context.result = await voidPayment(context.app, existing.id, actorOf(context), voidReason, context.params.writeScope)
    return next()
  }
  if (voidReason !== undefined) throw invalid('data', [{ field: 'voidReason', message: 'is only accepted with void: true' }])
  const notDraft = () => new Conflict(`Billing payment ${existing.id} is ${existing.status} and can no longer be changed`, { payment: existing.id })
  if (existing.status !== 'draft') throw notDraft()
  const { finalize, ...fields } = rest
  const now = Date.now()
  const changes = { ...fields, updatedAt: now, ...(finalize ? { status: 'finalized', finalizedAt: now, finalizedBy: actorOf(context) } : {}) }
  const updated = await orNull(payments._patch(existing.id, changes, { query: within({ status: 'draft' }, context.params.writeScope) }))
  if (!updated) throw notDraft()
  context.result = updated
  await next()
}

export const billingPayments = (app: Application) => {
  app.use(billingPaymentPath, createPaymentService(app), { methods: [...billingPaymentMethods], events: [] })
  app.service(billingPaymentPath).populatable = true

  defineAccess(billingPaymentPath, {
    // A payment whose recording is still in progress (`pending`) is not shown.
    read: (access) => ({ ...facilityScope(access), status: { $in: ['draft', 'finalized', 'voided'] } }),
    write: (access) => billingScope(access, billingSettings(app).privilege),
    // Recording a payment needs the billing privilege (or superadmin) in the item's facility; an item of
    // another facility is a 404.
    create: async (access, data) => {
      const item = await orNull(stores(app).items._get(data.item))
      if (!item || !isMember(access, item.facility)) throw new NotFound(`No billing item found for id '${data.item}'`)
      requireBilling(access, item.facility, billingSettings(app).privilege, 'Recording a payment')
    },
    ...facilityOwned,
    // A patient's billing documents are in the audit trail (README "Audit trail"): the patient is the invoice's.
    audit: invoiceChildAudit
  })

  const values = checkBillingValues({ type: 'paymentTypes', paymentMethod: 'paymentMethods' }, ['amount'])
  app.service(billingPaymentPath).hooks({
    around: {
      all: [authenticate('jwt'), presentResults(billingPaymentPath)],
      find: [validateQueryWith(paymentQuerySchema), scopeAccess],
      get: [validateQueryWith(paymentQuerySchema), scopeAccess],
      create: [validateBody({ create: paymentDataSchema }), values, scopeAccess, setCreated, createPayment],
      patch: [oneAtATime, validateQueryWith(paymentQuerySchema), scopeAccess, validateBody({ patch: paymentPatchSchema }), values, patchPayment]
    }
  })
}
