// The accounts store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Account } from './accounts.schema'

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

export const createAccountService = (app: Application) => createStore<Account>(app, getOptions(app))
