// The one authentication service at POST /authentication:
// - logins: `{ email, password [, mfaCode] }` (local), `{ strategy: "google" | "facebook", redirectURI, code }`
//   (OAuth, registering on first login), and `{ strategy: "jwt", accessToken }`;
// - actions: `{ action: connectOAuthAccount | applyActionCode | sendClaimCode | changeIdentity | changePassword |
//   setupMFA | disableMFA | logout-everywhere, ... }` (src/auth/flows.ts), answered by the same service without issuing a token.
// Every token carries the account's session version and is refused once it is bumped (src/auth/sessions.ts).
// docs/authentication.md documents every flow and its errors; docs/configuration.md its settings.
import type {
  AuthenticationParams,
  AuthenticationRequest,
  AuthenticationService
} from '@feathersjs/authentication'
import { LocalStrategy } from '@feathersjs/authentication-local'
import { BadRequest } from '@feathersjs/errors'
import { bodyNotAnObject } from './schema/validators'
import type { Params } from '@feathersjs/feathers'
import type { Application, HookContext, NextFunction } from './declarations'
import { resolveAuthSecret } from './auth-secret'
import { AuthFlows } from './auth/flows'
import { ActionCodes, actionCodeStoreOptions, type ActionCodeRecord } from './auth/action-codes'
import { createAuthMessenger } from './auth/messages'
import { ProviderStrategy, isConfigured } from './auth/oauth'
import { createAuthLimits } from './auth/rate-limit'
import { redisKey, redisOf } from './cluster/redis'
import { SessionAuthenticationService, ExpiringJWTStrategy, SessionConnections } from './auth/sessions'
import { authSettings, oauthProviders } from './auth/settings'
import { recordChange } from './audit/changes'
import { presentExternal } from './schema/external'
import { createStore } from './store'
import { depsSlot } from './deps'
import { logger } from './logger'
import { appSlot } from './runtime'

declare module './declarations' {
  interface ServiceTypes {
    authentication: AuthenticationService
  }
}

// Set when authentication is configured, before the first call.
const flowsSlot = appSlot<AuthFlows>('authentication flows')
const flowsOf = (app: Application) => flowsSlot.require(app)

// Emails are matched whatever their case or surrounding spaces; wrong email and wrong password are the same
// 401; failed tries are rate-limited per email and per IP; an account with MFA on also needs `mfaCode`.
export class EmailPasswordStrategy extends LocalStrategy {
  async authenticate(data: AuthenticationRequest, params: Params) {
    return flowsOf(this.app as Application).passwordLogin(data, params)
  }
}

// OAuth logins count against the per-IP login limit too.
class LimitedProviderStrategy extends ProviderStrategy {
  async authenticate(data: AuthenticationRequest, params: AuthenticationParams) {
    this.ensureConfigured()
    await flowsOf(this.app as Application).limits.loginsPerIp.consume(params.ip)
    return super.authenticate(data, params)
  }
}

// What is wrong with one login field, in words for people: missing, not a string, or too long.
const stringProblem = (value: unknown, required: boolean, maxLength: number) => {
  if (required && (value === undefined || value === null || value === '')) return 'is required'
  if (value === undefined) return undefined
  if (typeof value !== 'string') return 'must be a string'
  return value.length > maxLength ? `must be at most ${maxLength} characters` : undefined
}

const checkStrings = (data: Record<string, unknown>, fields: string[], optional: string[] = []) => {
  const errors = [
    ...fields.map((field) => ({ field, message: stringProblem(data[field], true, 1000) })),
    ...optional.map((field) => ({ field, message: stringProblem(data[field], false, 100) }))
  ].filter((error): error is { field: string; message: string } => error.message !== undefined)
  if (errors.length)
    throw new BadRequest(`Invalid login: ${errors.map((e) => `'${e.field}' ${e.message}`).join('; ')}`, {
      errors
    })
}

// A body without `strategy` and `action` is a password login (`{ email, password }`; a missing one is named), unless
// it carries an access token; both must be strings (no operator objects reach the query).
const defaultToPasswordLogin = async (context: HookContext, next: NextFunction) => {
  const data = context.data
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw bodyNotAnObject()
  if (data.strategy === undefined && data.action === undefined && data.accessToken === undefined) {
    context.data = { ...data, strategy: 'local' }
  }
  if (context.data.action === undefined && context.data.strategy === 'local')
    checkStrings(context.data, ['email', 'password'], ['mfaCode'])
  await next()
}

// `{ action, ... }` bodies run an action instead of a login; their results are never sent as events.
const runActions = async (context: HookContext, next: NextFunction) => {
  if (context.data.action === undefined) return next()
  if (context.data.strategy !== undefined) {
    throw new BadRequest("Send either 'strategy' (a login) or 'action', not both", {
      errors: [{ field: 'strategy', message: 'is not allowed with action' }]
    })
  }
  context.event = null
  context.result = await flowsOf(context.app).run(context.data, context.params)
}

// With REDIS_URL the limits' counters live in Redis, shared by every instance.
const sharedLimits = (app: Application) => {
  const client = redisOf(app)
  return client ? { client, prefix: redisKey(app, 'auth') } : undefined
}

export const authentication = (app: Application) => {
  const configured = app.get('authentication')
  const secret = resolveAuthSecret(configured.secret, app.get('dataDir'))
  const strategies: string[] = [
    ...new Set([...(configured.authStrategies ?? ['jwt', 'local']), ...oauthProviders])
  ]
  app.set('authentication', { ...configured, secret, authStrategies: strategies })

  const deps = depsSlot.require(app)
  const settings = authSettings(deps.settings)
  const present = <T>(account: T) => presentExternal(app, 'accounts', account)
  flowsSlot.set(
    app,
    new AuthFlows(
      deps,
      {
        authService: () => app.service('authentication'),
        present,
        recordChange: (change, params) => recordChange(app, change, params)
      },
      settings,
      createAuthLimits(settings.rateLimits, sharedLimits(app)),
      createAuthMessenger(settings.messaging),
      new ActionCodes(
        createStore<ActionCodeRecord>(app, actionCodeStoreOptions),
        secret,
        settings.actionCodes,
        deps.clock
      )
    )
  )

  const service = new SessionAuthenticationService(app, deps)
  service.register('jwt', new ExpiringJWTStrategy(deps, present))
  service.register('local', new EmailPasswordStrategy())
  for (const provider of oauthProviders)
    service.register(provider, new LimitedProviderStrategy(provider, settings.oauth[provider], deps))
  const unavailable = oauthProviders.filter((provider) => !isConfigured(settings.oauth[provider]))
  const available = oauthProviders.filter((provider) => isConfigured(settings.oauth[provider]))
  logger.info(
    `OAuth login: ${available.length ? `${available.join(', ')} available` : 'no provider configured'}` +
      (unavailable.length ? `; unavailable (no client id): ${unavailable.join(', ')}` : '')
  )
  app.use('authentication', service)
  app.service('authentication').hooks({ around: { create: [defaultToPasswordLogin, runActions] } })
  // The app's connections by account, built with its dependencies, follow logins and logouts from now on.
  if (deps.sessions instanceof SessionConnections) deps.sessions.track()
}
