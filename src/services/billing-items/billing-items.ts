// Billing items: lines of an invoice (price × quantity, quantity defaulting to 1). Items are added only to a
// draft invoice (409 otherwise), can be finalized on their own (PATCH {finalize: true}), and once finalized
// are neither changed nor removed. A `service` item's `ref` names a service of the same facility, whose
// price it takes unless a price is sent. Removing an item removes its payments (durably, cascade.ts).
// Members add and change draft items; finalizing and removing need the billing privilege or superadmin.
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
import { billingScope, facilityOwned, facilityScope, isMember } from '../../billing/access'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { externalView } from '../../schema/external'
import { orNull } from '../../billing/store-calls'
import { checkBillingValues } from '../../hooks/check-billing-values'
import { BillingItemService } from './billing-items.class'
import {
  itemDataSchema,
  itemExternalResolver,
  itemPatchSchema,
  itemQuerySchema
} from './billing-items.schema'
import { billingItemMethods, billingItemPath } from './billing-items.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [billingItemPath]: BillingItemService
  }
}

export const billingItems = (app: Application, deps: Deps) => {
  app.use(billingItemPath, new BillingItemService(app, deps), {
    methods: [...billingItemMethods],
    events: []
  })
  app.service(billingItemPath).populatable = true

  defineAccess(app, billingItemPath, {
    read: (access) => ({ ...facilityScope(access), deleting: { $ne: true } }),
    write: (access, method) =>
      method === 'remove'
        ? billingScope(access, deps.settings.get('billing').privilege)
        : facilityScope(access),
    // Members of the invoice's facility add items (an invoice of another facility is a 404).
    create: async (access, data) => {
      const invoice = await orNull(deps.stores.invoices._get(data.invoice))
      if (!invoice || !isMember(access, invoice.facility))
        throw new NotFound(`No billing invoice found for id '${data.invoice}'`)
    },
    ...facilityOwned,
    // A patient's billing documents are in the audit trail (docs/audit-trail.md): the patient is the invoice's.
    audit: invoiceChildAudit(deps.stores)
  })

  const values = checkBillingValues({ type: 'itemTypes' }, ['price'])
  app.service(billingItemPath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, billingItemPath, itemExternalResolver)],
      find: [validateQueryWith(itemQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(itemQuerySchema), scopeAccess, requireSubscription],
      create: [
        validateBody({ create: itemDataSchema }),
        values,
        scopeAccess,
        requireSubscription,
        setCreated
      ],
      patch: [
        oneAtATime,
        validateQueryWith(itemQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: itemPatchSchema }),
        values
      ],
      remove: [oneAtATime, validateQueryWith(itemQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
