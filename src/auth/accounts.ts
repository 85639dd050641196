// How the authentication flows read and change accounts: through the accounts store without hooks (so the
// hidden fields are there to check), and with every outgoing copy in the accounts' external view.
import type { Application } from '../declarations'
import type { StoreService } from '../store'
import { presentExternal } from '../schema/external'

export const accountsStore = (app: Application) => app.service('accounts') as unknown as StoreService

/** An account as it may leave the server: the accounts service's external resolver (src/schema/external.ts). */
export const safeAccount = <T>(app: Application, account: T) => presentExternal(app, 'accounts', account)
