// Path and methods of the accounts service, shared with the typed client (src/client.ts).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type { Account, accountDataSchema, accountPatchSchema, accountQuerySchema } from './accounts.schema'

export const accountPath = 'accounts'
export const accountMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

export type { Account }
export type AccountData = Static<typeof accountDataSchema>
export type AccountPatch = Static<typeof accountPatchSchema>
export type AccountQuery = Static<typeof accountQuerySchema>

/** What a client may call on accounts: its methods, typed by the schemas (data in, result out). */
export type AccountClientService = Pick<ClientService<Account, AccountData, AccountPatch, Paginated<Account>, ClientParams<AccountQuery>>, (typeof accountMethods)[number]>

declare module '../../client' {
  interface ServiceTypes {
    [accountPath]: AccountClientService
  }
}
