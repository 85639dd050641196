// Settings of the authentication flows: the parts of the configuration (src/configuration.ts) they read, as one
// typed object. Every key is documented in docs/configuration.md; defaults are in config/default.json.
import type { Application, Configuration } from '../declarations'

export type OAuthProviderName = 'google' | 'facebook'
export const oauthProviders: OAuthProviderName[] = ['google', 'facebook']

/** One OAuth provider: token endpoint (the code is exchanged there), profile endpoint, and the bound of each call. */
export type OAuthProviderSettings = Configuration['oauth'][OAuthProviderName]

/** One counter family: `points` per key within `durationMs`. */
export type LimitSettings = Configuration['rateLimits']['loginsPerIp']

export type AuthSettings = Pick<
  Configuration,
  'oauth' | 'actionCodes' | 'passwordPolicy' | 'mfa' | 'rateLimits' | 'messaging'
>

/** The settings the app was started with. */
export const authSettings = (app: Application): AuthSettings => ({
  oauth: app.get('oauth'),
  actionCodes: app.get('actionCodes'),
  passwordPolicy: app.get('passwordPolicy'),
  mfa: app.get('mfa'),
  rateLimits: app.get('rateLimits'),
  messaging: app.get('messaging')
})
