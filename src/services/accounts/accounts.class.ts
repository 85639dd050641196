// The accounts service: the store's typed adapter (its writes announced by ResourceService) and its options.
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, Stored } from '../../store'
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

export class AccountService extends ResourceService<
  Stored<Account>,
  AccountData,
  AccountPatch,
  AccountQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, accountPath, getOptions())
  }
}
