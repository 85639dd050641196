// Accounts as the authentication flows see them: emails compared in one form, and the accounts store for the
// callers that have only the app.
import type { Application } from '../declarations'
import { depsSlot, type Store } from '../deps'
import type { Account } from '../services/accounts/accounts.schema'

/** Emails are trimmed and lower-cased wherever they come in. */
export const normalizeEmail = (email: unknown) =>
  typeof email === 'string' ? email.trim().toLowerCase() : email

/**
 * The accounts store (no hooks, so with the hidden fields), for code not yet handed the app's dependencies:
 * the flows themselves read `deps.stores.accounts`.
 */
export const accountsStore = (app: Application): Store<Account> => depsSlot.require(app).stores.accounts
