// GET /console/config.json: what the browser console (public/) needs before anyone signs in — the OAuth
// providers that are configured (client id and authorization address; a provider without a client id is left
// out, so its button never shows). Nothing secret: a client id is part of every authorization address.
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application } from '../declarations'
import { authSettings, oauthProviders } from '../auth/settings'
import { isConfigured } from '../auth/oauth'

const providerPages = {
  google: {
    label: 'Google',
    authorizeURL: 'https://accounts.google.com/o/oauth2/v2/auth',
    scope: 'email profile',
    extra: { response_type: 'code', access_type: 'offline', prompt: 'consent' }
  },
  facebook: {
    label: 'Facebook',
    authorizeURL: 'https://www.facebook.com/v19.0/dialog/oauth',
    scope: 'email',
    extra: { response_type: 'code' }
  }
}

export const consoleConfig = (app: Application) => {
  const settings = authSettings(app)
  return {
    oauth: oauthProviders
      .filter((provider) => isConfigured(settings.oauth[provider]))
      .map((provider) => ({
        provider,
        clientId: settings.oauth[provider].clientId,
        ...providerPages[provider]
      }))
  }
}

export const consoleConfigEndpoint =
  (app: Application) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    if (ctx.path !== '/console/config.json' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next()
    ctx.set('cache-control', 'no-store')
    ctx.body = consoleConfig(app)
  }
