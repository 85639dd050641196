// The accounts service: what a sign-up and a removal do, and the store's options.
import type { NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { onBehalfOf } from '../../audit/changes'
import { subscribeSignUp } from '../../subscriptions/signup'
import { removeAccountSessions } from '../../auth/refresh'
import { ResourceService } from '../resource'
import type { Account } from './accounts.schema'
import { accountPath, type AccountData, type AccountPatch, type AccountQuery } from './accounts.shared'

export const getOptions = (): StoreOptions => ({
  name: 'accounts',
  indexes: [
    { fields: { email: 1 }, unique: true },
    { fields: { mobileNo: 1 }, sparse: true },
    // Linked OAuth identities: one account per provider user id; accounts without one are not indexed.
    { fields: { googleId: 1 }, unique: true, sparse: true },
    { fields: { facebookId: 1 }, unique: true, sparse: true }
  ],
  // Internal calls only (the query schema keeps it from clients): claiming a TOTP step (src/auth/flows.ts).
  operators: ['$exists']
})

type AccountParams = StoreParams<AccountQuery>

export class AccountService extends ResourceService<
  Stored<Account>,
  AccountData,
  AccountPatch,
  AccountQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, accountPath, getOptions())
  }

  /**
   * Signs up: the account, and when the body asks for one its `organization` with the new account as superadmin,
   * and that organization's `subscription` (src/subscriptions/signup.ts) — all or nothing.
   */
  async create(data: AccountData, params: AccountParams = {}): Promise<Stored<Account>> {
    const { organization, ...account } = data
    return this.write('create', null, params, async () => {
      const created = await this.store.create(account, params)
      if (!organization) return created
      const { subscription, ...organizationData } = organization
      try {
        const org = await this.app
          .service('organizations')
          .create(organizationData, { account: created, authenticated: true })
        const result = { ...created, organization: org }
        return subscription ? await subscribeSignUp(this.deps, result, subscription, params) : result
      } catch (error) {
        await this._remove(created.id)
        throw error
      }
    })
  }

  /**
   * Removes an account with its memberships and its own webhooks (records and billing documents stay), and ends
   * its sessions: its tokens are refused (no account) and its open sockets are cut at once, on every instance.
   */
  async remove(id: NullableId, params: AccountParams = {}): Promise<Stored<Account>> {
    return this.write('remove', id, params, async () => {
      const removed = await this.store.remove(id, params)
      const account = removed.id
      await removeAccountSessions(this.deps, account)
      await this.deps.sessions.cutAccount(account, 'account-removed', params.connection)
      // (on behalf of the caller: the removals' audit events name who removed them)
      const cascade = () => ({ bootstrap: true, ...onBehalfOf(params) })
      const { members, webhooks } = this.deps.stores
      for (const doc of await members._find({ query: { uid: account }, paginate: false }))
        await this.app.service('organization-members').remove(doc.id, cascade())
      for (const doc of await webhooks._find({ query: { account }, paginate: false }))
        await this.app.service('webhooks').remove(doc.id, cascade())
      return removed
    })
  }
}
