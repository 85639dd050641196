// Organization invitations: members by email. A superadmin of the organization invites `{ organization, email,
// roles?, privileges? }`; the address gets a message with a single-use code (expiring after seven days); the
// invitee, signed in with that address (signed up or not before), calls `accept { code }` and becomes a member
// through the organization-members service. Superadmins list the organization's invitations and withdraw one
// (remove); other members get 403 on create, everyone else 404. No automatic joining on sign-up: an address given
// at sign-up is not proven, the mailed code is.
import { authenticate } from '@feathersjs/authentication'
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { isMemberWith, superadminOf } from '../../access/context'
import { scopeAccess } from '../../hooks/scope-access'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { externalView } from '../../schema/external'
import { OrganizationInvitationService } from './organization-invitations.class'
import {
  invitationDataSchema,
  invitationExternalResolver,
  invitationQuerySchema
} from './organization-invitations.schema'
import { organizationInvitationMethods, organizationInvitationPath } from './organization-invitations.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [organizationInvitationPath]: OrganizationInvitationService
  }
}

export const organizationInvitations = (app: Application, deps: Deps) => {
  app.use(organizationInvitationPath, new OrganizationInvitationService(app, deps), {
    methods: [...organizationInvitationMethods],
    events: []
  })

  const managed = (access: Parameters<typeof superadminOf>[0]) =>
    access.admin ? null : { organization: { $in: superadminOf(access) } }
  defineAccess(app, organizationInvitationPath, {
    read: managed,
    write: managed,
    create: (access, data) => {
      if (!isMemberWith(access, data.organization))
        throw new NotFound(`No organization found for id '${data.organization}'`)
      if (!isMemberWith(access, data.organization, { superadmin: true }))
        throw new Forbidden('Only superadmins of the organization may invite members')
    },
    audience: (doc) => [`organizations/${doc.organization}`],
    organizations: (doc) => [doc.organization]
  })

  app.service(organizationInvitationPath).hooks({
    around: {
      all: [authenticate('jwt'), externalView(app, organizationInvitationPath, invitationExternalResolver)],
      find: [validateQueryWith(invitationQuerySchema), scopeAccess],
      get: [validateQueryWith(invitationQuerySchema), scopeAccess],
      create: [validateBody({ create: invitationDataSchema }), scopeAccess],
      remove: [validateQueryWith(invitationQuerySchema), scopeAccess]
    }
  })
}
