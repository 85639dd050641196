// Settings of the authentication flows, read from config/ with the defaults below filled in for any key a
// deployment (or a test) leaves out. Every key is documented in README.md ("Authentication").
import type { Application } from '../declarations'

export type OAuthProviderName = 'google' | 'facebook'
export const oauthProviders: OAuthProviderName[] = ['google', 'facebook']

export interface OAuthProviderSettings {
  clientId: string
  clientSecret: string
  /** Token endpoint: the authorization code is exchanged here (POST, form-encoded, RFC 6749 §4.1.3). */
  tokenURL: string
  /** Profile endpoint: read with the provider access token as a Bearer header. */
  profileURL: string
  /** Upper bound for each provider call; past it the login is a 502. */
  timeoutMs: number
}

export interface LimitSettings {
  points: number
  durationSeconds: number
}

export interface AuthSettings {
  oauth: Record<OAuthProviderName, OAuthProviderSettings>
  actionCodes: { expiresInMs: number; maxAttempts: number }
  passwordPolicy: { minLength: number; maxLength: number; minCharacterClasses: number }
  mfa: { issuer: string; window: number }
  rateLimits: {
    failedLoginsPerEmail: LimitSettings
    loginsPerIp: LimitSettings
    failedActionCodesPerAccount: LimitSettings
    actionCodesPerIp: LimitSettings
    messagesPerAccount: LimitSettings
  }
  messaging: { smtpUrl: string; mailFrom: string; smsWebhookUrl: string; timeoutMs: number }
}

export const defaultAuthSettings: AuthSettings = {
  oauth: {
    google: {
      clientId: '',
      clientSecret: '',
      tokenURL: 'https://oauth2.googleapis.com/token',
      profileURL: 'https://openidconnect.googleapis.com/v1/userinfo',
      timeoutMs: 10000
    },
    facebook: {
      clientId: '',
      clientSecret: '',
      tokenURL: 'https://graph.facebook.com/v19.0/oauth/access_token',
      profileURL: 'https://graph.facebook.com/v19.0/me?fields=id,email,first_name,last_name,name',
      timeoutMs: 10000
    }
  },
  actionCodes: { expiresInMs: 15 * 60 * 1000, maxAttempts: 5 },
  passwordPolicy: { minLength: 10, maxLength: 200, minCharacterClasses: 2 },
  mfa: { issuer: 'Clinic', window: 1 },
  rateLimits: {
    failedLoginsPerEmail: { points: 10, durationSeconds: 900 },
    loginsPerIp: { points: 300, durationSeconds: 900 },
    failedActionCodesPerAccount: { points: 10, durationSeconds: 900 },
    actionCodesPerIp: { points: 300, durationSeconds: 900 },
    messagesPerAccount: { points: 10, durationSeconds: 900 }
  },
  messaging: { smtpUrl: '', mailFrom: '', smsWebhookUrl: '', timeoutMs: 10000 }
}

const isPlainObject = (value: unknown): value is Record<string, any> => !!value && typeof value === 'object' && !Array.isArray(value)

// Config values from environment variables arrive as strings; numbers are coerced where the default is a number.
const merge = (defaults: any, given: any): any => {
  if (!isPlainObject(defaults)) {
    if (given === undefined || given === null || given === '') return defaults
    if (typeof defaults === 'number') {
      const number = Number(given)
      return Number.isFinite(number) ? number : defaults
    }
    return given
  }
  const result: Record<string, any> = {}
  const source = isPlainObject(given) ? given : {}
  for (const key of Object.keys(defaults)) result[key] = merge(defaults[key], source[key])
  return result
}

const settingsKeys = Object.keys(defaultAuthSettings) as (keyof AuthSettings)[]

/** The effective settings: config values over the defaults (read once per app, at start-up). */
export const readAuthSettings = (app: Application): AuthSettings => {
  const settings: any = {}
  for (const key of settingsKeys) settings[key] = merge(defaultAuthSettings[key], app.get(key))
  return settings as AuthSettings
}

/** The settings the app was started with. */
export const authSettings = (app: Application): AuthSettings => {
  let settings = app.get('authSettings') as AuthSettings | undefined
  if (!settings) {
    settings = readAuthSettings(app)
    app.set('authSettings', settings)
  }
  return settings
}
