// Billing customers: an account or an organization as a payer with cards saved at the card processor
// (src/providers/processor/; no card number ever touches this server — clients send processor tokens).
// POST { owner: { account } | { organization }, processorToken?, processorEmail? } creates the customer (and
// saves the token's card as the default): an account only for itself, an organization only by its
// superadmin; one customer per owner (409 naming the existing one). GET …?$populateProcessorCards=true adds
// processorCustomerCards.data (most recently added first, default marked). PATCH { processorToken } saves
// another card (the new default), { $deleteProcessorCard: id } deletes one (the most recently added remaining
// card becomes the default), { $setDefaultProcessorCard: id } picks the default, { processorEmail } changes the
// email. Rules in src/billing/customers.ts. Who: an account's customer is its own; an organization's is read
// by its superadmins and members with the billing privilege, and changed by its superadmins. Others: 404.
// POST accepts an Idempotency-Key header (src/hooks/idempotency-key.ts).
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { superadminOf } from '../../access/context'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { idempotencyKey } from '../../hooks/idempotency-key'
import { idempotencyStore } from '../../billing/idempotency'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { billingFacilities, isMember } from '../../billing/access'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { externalView } from '../../schema/external'
import { billingSettings } from '../../billing/settings'
import { BillingCustomerService } from './billing-customers.class'
import {
  customerDataSchema,
  customerExternalResolver,
  customerGetQuerySchema,
  customerPatchSchema,
  customerQuerySchema
} from './billing-customers.schema'
import { billingCustomerMethods, billingCustomerPath } from './billing-customers.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [billingCustomerPath]: BillingCustomerService
  }
}

export const billingCustomers = (app: Application, deps: Deps) => {
  // Built now so a bad PROCESSOR / STRIPE_* setting fails at start-up.
  deps.providers.processor()
  idempotencyStore(app)
  app.use(billingCustomerPath, new BillingCustomerService(app, deps), {
    methods: [...billingCustomerMethods],
    events: []
  })
  const privilege = billingSettings(app).privilege

  defineAccess(app, billingCustomerPath, {
    read: (access) => ({
      $or: [
        { 'owner.account': access.accountId },
        { 'owner.organization': { $in: billingFacilities(access, privilege) } }
      ]
    }),
    write: (access) => ({
      $or: [{ 'owner.account': access.accountId }, { 'owner.organization': { $in: superadminOf(access) } }]
    }),
    // An account creates a customer for itself only; an organization's only its superadmin (a member without
    // it: 403; an organization the caller is not in: 404).
    create: (access, data) => {
      if ('account' in data.owner) {
        if (data.owner.account !== access.accountId)
          throw new Forbidden('An account may create a billing customer only for itself')
        return
      }
      const organization = data.owner.organization
      if (!isMember(access, organization))
        throw new NotFound(`No organization found for id '${organization}'`)
      if (!superadminOf(access).includes(organization))
        throw new Forbidden('Only a superadmin of the organization may create its billing customer')
    },
    audience: (doc) =>
      doc.owner && 'account' in doc.owner
        ? [`accounts/${doc.owner.account}`]
        : [`organizations/${doc.owner?.organization}`],
    organizations: (doc) => (doc.owner && 'organization' in doc.owner ? [doc.owner.organization] : [])
  })

  app.service(billingCustomerPath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, billingCustomerPath, customerExternalResolver)],
      find: [validateQueryWith(customerQuerySchema), scopeAccess],
      get: [validateQueryWith(customerGetQuerySchema), scopeAccess],
      create: [validateBody({ create: customerDataSchema }), scopeAccess, idempotencyKey, setCreated],
      patch: [
        oneAtATime,
        validateQueryWith(customerQuerySchema),
        scopeAccess,
        validateBody({ patch: customerPatchSchema })
      ]
    }
  })
}
