// The one authentication service at POST /authentication: JWT and email/password (local) strategies.
// Later flows (OAuth, action codes, MFA) extend this service rather than adding a parallel system.
import { AuthenticationService, JWTStrategy } from '@feathersjs/authentication'
import { LocalStrategy } from '@feathersjs/authentication-local'
import { BadRequest } from '@feathersjs/errors'
import type { Params } from '@feathersjs/feathers'
import type { Application, HookContext, NextFunction } from './declarations'
import { resolveAuthSecret } from './auth-secret'
import { normalizeEmail } from './services/accounts/accounts'

declare module './declarations' {
  interface ServiceTypes {
    authentication: AuthenticationService
  }
}

// Emails are matched whatever their case or surrounding spaces; wrong email and wrong password are the same 401.
export class EmailPasswordStrategy extends LocalStrategy {
  async authenticate(data: any, params: Params) {
    return super.authenticate({ ...data, email: normalizeEmail(data.email) }, params)
  }
}

// `{ email, password }` needs no `strategy`; both must be strings (no operator objects reach the query).
const defaultToPasswordLogin = async (context: HookContext, next: NextFunction) => {
  const data = context.data
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new BadRequest('The body must be a JSON object')
  if (data.strategy === undefined && data.email !== undefined && data.action === undefined) {
    context.data = { ...data, strategy: 'local' }
  }
  if (context.data.strategy === 'local') {
    const errors = ['email', 'password']
      .filter((field) => typeof context.data[field] !== 'string' || context.data[field].length === 0 || context.data[field].length > 1000)
      .map((field) => ({ field, message: 'is required and must be a string' }))
    if (errors.length) throw new BadRequest(`Invalid login: ${errors.map((e) => `'${e.field}' ${e.message}`).join('; ')}`, { errors })
  }
  await next()
}

export const authentication = (app: Application) => {
  const settings = app.get('authentication')
  app.set('authentication', { ...settings, secret: resolveAuthSecret(settings.secret, app.get('dataDir')) })

  const service = new AuthenticationService(app)
  service.register('jwt', new JWTStrategy())
  service.register('local', new EmailPasswordStrategy())
  app.use('authentication', service)
  app.service('authentication').hooks({ around: { create: [defaultToPasswordLogin] } })
}
