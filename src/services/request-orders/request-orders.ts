// Request orders: a facility orders items (supplies, medicines, services) for a patient, a ward or an
// organization. POST { owner: { organization }, requestedForType, requestedFor, items, notes? }: items are
// `name` (+ quantity, default 1) or `refType` + `ref` (an `inventory-variant` sku or a `service` id of the owner
// facility) whose name, unit and price the server fills in. PATCH { changeStatus } moves it through the status
// machine (src/orders/status.ts) — to `dispatched` with a `stockroom` it consumes the stock of the inventory-variant
// items, all or nothing (src/orders/dispatch.ts) — and PATCH { confirmItem } confirms one item. Members of the owner organization
// create, read and change orders; the account an order is requested for (requestedForType `patient`) reads it;
// everyone else gets 404. Orders for a patient are in the audit trail with that patient.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { organizationIds } from '../../access/context'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { isMember } from '../../billing/access'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { externalView } from '../../schema/external'
import { RequestOrderService } from './request-orders.class'
import {
  orderDataSchema,
  orderExternalResolver,
  orderPatchSchema,
  orderQuerySchema
} from './request-orders.schema'
import { requestOrderMethods, requestOrderPath } from './request-orders.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [requestOrderPath]: RequestOrderService
  }
}

const patientOf = (doc: { requestedForType?: unknown; requestedFor?: unknown }): string | undefined =>
  doc?.requestedForType === 'patient' && typeof doc.requestedFor === 'string' ? doc.requestedFor : undefined

export const requestOrders = (app: Application, deps: Deps) => {
  app.use(requestOrderPath, new RequestOrderService(app, deps), {
    methods: [...requestOrderMethods],
    events: []
  })

  defineAccess(app, requestOrderPath, {
    read: (access) => ({
      $or: [
        { 'owner.organization': { $in: organizationIds(access) } },
        { requestedForType: 'patient', requestedFor: access.accountId }
      ]
    }),
    write: (access) => ({ 'owner.organization': { $in: organizationIds(access) } }),
    // Members of the owner organization order (another organization is a 404).
    create: (access, data) => {
      if (!isMember(access, data.owner.organization))
        throw new NotFound(`No organization found for id '${data.owner.organization}'`)
    },
    audience: (doc) => [
      `organizations/${doc.owner?.organization}`,
      ...(patientOf(doc) ? [`accounts/${patientOf(doc)}`] : [])
    ],
    organizations: (doc) => [doc.owner?.organization],
    // An order for a patient is patient data (docs/audit-trail.md).
    audit: {
      fields: ['requestedForType', 'requestedFor', 'owner.organization'],
      patient: patientOf,
      facility: (doc) => doc.owner?.organization
    }
  })

  app.service(requestOrderPath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, requestOrderPath, orderExternalResolver)],
      find: [validateQueryWith(orderQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(orderQuerySchema), scopeAccess, requireSubscription],
      create: [validateBody({ create: orderDataSchema }), scopeAccess, requireSubscription, setCreated],
      patch: [
        oneAtATime,
        validateQueryWith(orderQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: orderPatchSchema })
      ]
    }
  })
}
