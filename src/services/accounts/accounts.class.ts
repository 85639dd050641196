// The accounts store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Account } from './accounts.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'accounts',
  indexes: [
    { fields: { email: 1 }, unique: true },
    { fields: { mobileNo: 1 }, sparse: true }
  ]
})

export const createAccountService = (app: Application) => createStore<Account>(app, getOptions(app))
