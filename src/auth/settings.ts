// Settings of the authentication flows: the parts of the configuration (src/configuration.ts) they read, as one
// typed object. Every key is documented in docs/configuration.md; defaults are in config/default.json.
import type { Configuration } from '../declarations'

/** Where the settings are read: the app's dependencies (`deps.settings`) or the app itself. */
interface SettingsSource {
  get<K extends keyof Configuration>(key: K): Configuration[K]
}

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

/** The settings as `settings` holds them now. */
export const authSettings = (settings: SettingsSource): AuthSettings => ({
  oauth: settings.get('oauth'),
  actionCodes: settings.get('actionCodes'),
  passwordPolicy: settings.get('passwordPolicy'),
  mfa: settings.get('mfa'),
  rateLimits: settings.get('rateLimits'),
  messaging: settings.get('messaging')
})
