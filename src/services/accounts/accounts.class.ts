// The accounts store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { Account } from './accounts.schema'
import type { AccountData, AccountPatch, AccountQuery } from './accounts.shared'

export const getOptions = (_app: Application): StoreOptions => ({
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

/** The accounts service as the app holds it: the store's adapter typed by the schemas. */
export type AccountService = StoreService<Stored<Account>, AccountData, AccountPatch, AccountQuery>

export const createAccountService = (app: Application): AccountService =>
  createStore<Stored<Account>, AccountData, AccountPatch, AccountQuery>(app, getOptions(app))
