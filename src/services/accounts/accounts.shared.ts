// Path and methods of the accounts service, shared with the typed client (src/client.ts).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Account as AccountDoc,
  accountSecrets,
  accountDataSchema,
  accountPatchSchema,
  accountQuerySchema
} from './accounts.schema'
import type { External } from '../../schema/resolvers'
import type { Organization } from '../organizations/organizations.shared'
import type { Subscription } from '../subscriptions/subscriptions.shared'

export const accountPath = 'accounts'
export const accountMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

/** An account as clients receive it: none of the fields its external resolver keeps on the server. */
export type Account = External<AccountDoc, typeof accountSecrets>
export type AccountData = Static<typeof accountDataSchema>
export type AccountPatch = Static<typeof accountPatchSchema>
export type AccountQuery = Static<typeof accountQuerySchema>

/**
 * The sign-up answer (POST /accounts): the new account, and with `organization` in the body the organization created
 * with it (the account is its superadmin) and, when the body asked for one, that organization's `subscription`.
 */
export type SignedUpAccount = Account & { organization?: Organization; subscription?: Subscription }

/** What a client may call on accounts: its methods, typed by the schemas (data in, result out). */
export type AccountClientService = Pick<
  ClientService<Account, AccountData, AccountPatch, Paginated<Account>, ClientParams<AccountQuery>>,
  Exclude<(typeof accountMethods)[number], 'create'>
> & {
  /** Sign-up with an organization: the answer carries it. */
  create(
    data: AccountData & { organization: NonNullable<AccountData['organization']> },
    params?: ClientParams<AccountQuery>
  ): Promise<SignedUpAccount & { organization: Organization }>
  create(data: AccountData, params?: ClientParams<AccountQuery>): Promise<SignedUpAccount>
}

declare module '../../client' {
  interface ServiceTypes {
    [accountPath]: AccountClientService
  }
}
