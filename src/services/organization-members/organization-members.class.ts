// The organization-members service: the store's typed adapter (its writes announced by ResourceService) and its
// options. Every write of a membership bumps the `accessVersion` of the accounts it concerns before it resolves,
// which invalidates their cached access contexts on every instance (src/access/context.ts).
import { NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, Stored } from '../../store'
import { ResourceService } from '../resource'
import type { Member } from './organization-members.schema'
import {
  organizationMemberPath,
  type OrganizationMemberData,
  type OrganizationMemberPatch,
  type OrganizationMemberQuery
} from './organization-members.shared'

const bumpAccessVersions = (deps: Pick<Deps, 'access' | 'stores'>) => async (docs: Partial<Member>[]) => {
  for (const uid of new Set(
    docs.map((doc) => doc.uid).filter((uid): uid is string => typeof uid === 'string')
  )) {
    deps.access.forget(uid)
    await deps.stores.accounts._patch(uid, { $inc: { accessVersion: 1 } }).catch((error: unknown) => {
      if (!(error instanceof NotFound)) throw error
    })
  }
}

export const getOptions = (deps: Pick<Deps, 'access' | 'stores'>): StoreOptions => ({
  name: 'organization-members',
  indexes: [{ fields: { organization: 1, uid: 1 }, unique: true }, { fields: { uid: 1 } }],
  afterWrite: bumpAccessVersions(deps)
})

export class OrganizationMemberService extends ResourceService<
  Stored<Member>,
  OrganizationMemberData,
  OrganizationMemberPatch,
  OrganizationMemberQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, organizationMemberPath, getOptions(deps))
  }
}
