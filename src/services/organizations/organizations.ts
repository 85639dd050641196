// Organizations: every signed-in account may create one and becomes its superadmin; members read; superadmins change.
import { authenticate } from '@feathersjs/authentication'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { organizationIds, superadminOf } from '../../access/context'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { OrganizationService } from './organizations.class'
import {
  organizationDataSchema,
  organizationPatchSchema,
  organizationQuerySchema
} from './organizations.schema'
import { organizationMethods, organizationPath } from './organizations.shared'
import { onBehalfOf } from '../../audit/changes'
import { cancelForRemovedFacility } from '../../subscriptions/lifecycle'

declare module '../../declarations' {
  interface ServiceTypes {
    [organizationPath]: OrganizationService
  }
}

// The creator becomes the first superadmin member; without that membership the organization is not kept.
const addCreatorAsSuperadmin = async (context: HookContext, next: NextFunction) => {
  await next()
  const organization = context.result
  try {
    await context.app.service('organization-members').create(
      {
        organization: organization.id,
        uid: context.params.account.id,
        roles: [],
        privileges: [],
        superadmin: true
      },
      {
        ...onBehalfOf(context.params),
        account: context.params.account,
        authenticated: true,
        bootstrap: true
      }
    )
  } catch (error) {
    await context.service._remove(organization.id)
    throw error
  }
}

// Removing an organization removes its memberships and its webhooks, and cancels its live subscription.
const removeDependents = (deps: Deps) => async (context: HookContext, next: NextFunction) => {
  await next()
  const organization: string = context.result.id
  // (on behalf of the caller: the removals' audit events name who removed them)
  const params = () => ({ bootstrap: true, ...onBehalfOf(context.params) })
  const members = await deps.stores.members._find({ query: { organization }, paginate: false })
  for (const doc of members) await context.app.service('organization-members').remove(doc.id, params())
  const webhooks = await deps.stores.webhooks._find({ query: { organization }, paginate: false })
  for (const doc of webhooks) await context.app.service('webhooks').remove(doc.id, params())
  await cancelForRemovedFacility(context.app, organization, context.params.account?.id ?? null)
}

export const organizations = (app: Application, deps: Deps) => {
  app.use(organizationPath, new OrganizationService(app, deps), {
    methods: [...organizationMethods],
    events: []
  })
  app.service(organizationPath).populatable = true

  defineAccess(app, organizationPath, {
    read: (access) => (access.admin ? null : { id: { $in: organizationIds(access) } }),
    write: (access) => ({ id: { $in: superadminOf(access) } }),
    // Any signed-in account may create an organization (and becomes its superadmin).
    create: () => undefined,
    audience: (doc) => [`organizations/${doc.id}`],
    organizations: (doc) => [doc.id]
  })

  app.service(organizationPath).hooks({
    around: {
      all: [authenticate('jwt')],
      find: [validateQueryWith(organizationQuerySchema), scopeAccess],
      get: [validateQueryWith(organizationQuerySchema), scopeAccess],
      create: [
        validateBody({ create: organizationDataSchema }),
        scopeAccess,
        addCreatorAsSuperadmin,
        setCreated
      ],
      patch: [
        validateQueryWith(organizationQuerySchema),
        scopeAccess,
        validateBody({ patch: organizationPatchSchema })
      ],
      remove: [validateQueryWith(organizationQuerySchema), scopeAccess, removeDependents(deps)]
    }
  })
}
