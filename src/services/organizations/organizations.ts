// Organizations: every signed-in account may create one and becomes its superadmin; members read; superadmins change
// (what a create and a removal do: organizations.class.ts).
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import type { Application } from '../../declarations'
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

declare module '../../declarations' {
  interface ServiceTypes {
    [organizationPath]: OrganizationService
  }
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
      all: [populate, authenticate('jwt')],
      find: [validateQueryWith(organizationQuerySchema), scopeAccess],
      get: [validateQueryWith(organizationQuerySchema), scopeAccess],
      create: [validateBody({ create: organizationDataSchema }), scopeAccess, setCreated],
      patch: [
        validateQueryWith(organizationQuerySchema),
        scopeAccess,
        validateBody({ patch: organizationPatchSchema })
      ],
      remove: [validateQueryWith(organizationQuerySchema), scopeAccess]
    }
  })
}
