// The organization-members store and its options. Every write of a membership bumps the `accessVersion` of the
// accounts it concerns before it resolves, which invalidates their cached access contexts on every instance
// (src/access/context.ts).
import { NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import { forgetAccess } from '../../access/context'
import { accountsStore } from '../../auth/accounts'
import type { Member } from './organization-members.schema'
import type {
  OrganizationMemberData,
  OrganizationMemberPatch,
  OrganizationMemberQuery
} from './organization-members.shared'

const bumpAccessVersions = (app: Application) => async (docs: Member[]) => {
  for (const uid of new Set(
    docs.map((doc) => doc.uid).filter((uid): uid is string => typeof uid === 'string')
  )) {
    forgetAccess(app, uid)
    await accountsStore(app)
      ._patch(uid, { $inc: { accessVersion: 1 } })
      .catch((error: unknown) => {
        if (!(error instanceof NotFound)) throw error
      })
  }
}

export const getOptions = (app: Application): StoreOptions => ({
  name: 'organization-members',
  indexes: [{ fields: { organization: 1, uid: 1 }, unique: true }, { fields: { uid: 1 } }],
  afterWrite: bumpAccessVersions(app)
})

/** The organization-members service as the app holds it: the store's adapter typed by the schemas. */
export type OrganizationMemberService = StoreService<
  Stored<Member>,
  OrganizationMemberData,
  OrganizationMemberPatch,
  OrganizationMemberQuery
>

export const createMemberService = (app: Application): OrganizationMemberService =>
  createStore<Stored<Member>, OrganizationMemberData, OrganizationMemberPatch, OrganizationMemberQuery>(
    app,
    getOptions(app)
  )
