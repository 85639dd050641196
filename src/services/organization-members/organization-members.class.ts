// The organization-members store and its options.
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import type { Member } from './organization-members.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'organization-members',
  indexes: [{ fields: { organization: 1, uid: 1 }, unique: true }, { fields: { uid: 1 } }]
})

export const createMemberService = (app: Application) => createStore<Member>(app, getOptions(app))
