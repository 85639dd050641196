// Organization members: roles, privileges and superadmin flags, managed by the organization's superadmins.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { memberNames } from '../../hooks/party-names'
import { BadRequest, Conflict, Forbidden, NotFound } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { isMemberWith, organizationIds, superadminOf } from '../../access/context'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { declareChangeAudit, type ChangeAudit } from '../../audit/changes'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { OrganizationMemberService } from './organization-members.class'
import {
  type Member,
  memberDataSchema,
  memberPatchSchema,
  memberQuerySchema
} from './organization-members.schema'
import { organizationMemberMethods, organizationMemberPath } from './organization-members.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [organizationMemberPath]: OrganizationMemberService
  }
}

// The added account must exist and not be a member already.
const requireNewMemberAccount = (deps: Deps) => async (context: HookContext, next: NextFunction) => {
  await deps.stores.accounts._get(context.data.uid).catch(() => {
    throw new BadRequest('uid must be an existing account', {
      errors: [{ field: 'uid', message: 'is not an existing account' }]
    })
  })
  const duplicate = await context.service._find({
    query: { organization: context.data.organization, uid: context.data.uid },
    paginate: false
  })
  if (duplicate.length)
    throw new Conflict('This account is already a member of the organization', {
      errors: [{ field: 'uid', message: 'is already a member' }]
    })
  await next()
}

// An organization always keeps at least one superadmin (except when the organization itself is removed).
const keepOneSuperadmin = async (context: HookContext, next: NextFunction) => {
  if (!context.params.bootstrap && context.id !== null && context.id !== undefined) {
    const service: OrganizationMemberService = context.service
    const member = context.params.existing ?? (await service._get(context.id))
    const demoting = context.method === 'remove' || (context.data && context.data.superadmin === false)
    if (member.superadmin && demoting) {
      const admins = await service._find({
        query: { organization: member.organization, superadmin: true, $limit: 2 },
        paginate: false
      })
      if (admins.length <= 1) throw new Conflict('An organization must keep at least one superadmin')
    }
  }
  await next()
}

// Every membership added or removed and every change of its roles, privileges or superadmin flag is an audit event
// (`member-add`, `member-remove`, `privilege-change`), seen by the member, the organization's superadmins and admins.
const membershipChanges = (deps: Deps): ChangeAudit<Member> => ({
  describe: (member) => ({
    account: member.uid,
    facility: member.organization,
    fields: {
      roles: member.roles ?? [],
      privileges: member.privileges ?? [],
      superadmin: member.superadmin === true
    }
  }),
  actions: { create: 'member-add', patch: 'privilege-change', remove: 'member-remove' },
  load: (id) => deps.stores.members._get(id)
})

export const organizationMembers = (app: Application, deps: Deps) => {
  app.use(organizationMemberPath, new OrganizationMemberService(app, deps), {
    methods: [...organizationMemberMethods],
    events: []
  })
  app.service(organizationMemberPath).populatable = true
  declareChangeAudit(app, organizationMemberPath, membershipChanges(deps))

  defineAccess(app, organizationMemberPath, {
    read: (access) => (access.admin ? null : { organization: { $in: organizationIds(access) } }),
    // Superadmins manage members; every member may leave (remove their own membership).
    write: (access, method) =>
      method === 'remove'
        ? { $or: [{ organization: { $in: superadminOf(access) } }, { uid: access.accountId }] }
        : { organization: { $in: superadminOf(access) } },
    // Only the organization's superadmins add members (other members 403, anyone else 404).
    create: (access, data) => {
      if (!isMemberWith(access, data.organization))
        throw new NotFound(`No organization found for id '${data.organization}'`)
      if (!isMemberWith(access, data.organization, { superadmin: true }))
        throw new Forbidden('Only superadmins of the organization may add members')
    },
    audience: (doc) => [`organizations/${doc.organization}`, `accounts/${doc.uid}`],
    organizations: (doc) => [doc.organization]
  })

  app.service(organizationMemberPath).hooks({
    around: {
      all: [memberNames(deps), populate, authenticate('jwt')],
      find: [validateQueryWith(memberQuerySchema), scopeAccess],
      get: [validateQueryWith(memberQuerySchema), scopeAccess],
      create: [
        validateBody({ create: memberDataSchema }),
        scopeAccess,
        requireNewMemberAccount(deps),
        setCreated
      ],
      patch: [
        validateQueryWith(memberQuerySchema),
        scopeAccess,
        validateBody({ patch: memberPatchSchema }),
        keepOneSuperadmin
      ],
      remove: [validateQueryWith(memberQuerySchema), scopeAccess, keepOneSuperadmin]
    }
  })
}
