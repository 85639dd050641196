// How the authentication flows read and change accounts: through the accounts store without hooks (so the
// hidden fields are there to check), and with every outgoing copy stripped of the hidden fields.
import type { Application } from '../declarations'
import type { StoreService } from '../store'
import { accountSecrets } from '../services/accounts/accounts.schema'

export const accountsStore = (app: Application) => app.service('accounts') as unknown as StoreService

/** An account as it may leave the server. */
export const safeAccount = (account: any) => {
  if (!account || typeof account !== 'object') return account
  const copy = { ...account }
  for (const field of accountSecrets) delete copy[field]
  return copy
}
