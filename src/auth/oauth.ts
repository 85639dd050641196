// OAuth login with `google` and `facebook`: the client runs the provider's authorization step and posts
// `{ strategy, redirectURI, code }`; the strategy exchanges the code at the provider's token endpoint
// (client id and secret from config, `redirect_uri` = redirectURI exactly), reads the profile, and finds the
// account by the provider's user id — or registers one on first login. Built on @feathersjs/authentication-
// oauth's OAuthStrategy (its own getProfile expects a token obtained by its redirect flow, which this API
// does not use). Provider failures are 401 (the code was refused) or 502 (the provider failed), never a 500.
import { OAuthStrategy, type OAuthProfile } from '@feathersjs/authentication-oauth'
import type { AuthenticationRequest, AuthenticationParams } from '@feathersjs/authentication'
import { BadGateway, BadRequest, Conflict, NotAuthenticated, NotImplemented } from '@feathersjs/errors'
import type { Params } from '@feathersjs/feathers'
import { logger } from '../logger'
import type { Deps } from '../deps'
import type { OAuthProviderName, OAuthProviderSettings } from './settings'
import { normalizeEmail } from './accounts'
import { getDispatchValue } from '@feathersjs/schema'

/** The provider profile as this app uses it. */
export interface ProviderProfile extends OAuthProfile {
  id: string
  email?: string
  emailVerified?: boolean
  firstName?: string
  lastName?: string
}

const MAX_RESPONSE_BYTES = 1_000_000
const displayName: Record<OAuthProviderName, string> = { google: 'Google', facebook: 'Facebook' }

/** The account field holding the provider's user id (hidden from every response; sparse unique index). */
export const identityField = (provider: OAuthProviderName) => `${provider}Id` as const

const fieldError = (field: string, message: string) =>
  new BadRequest(`Invalid '${field}': ${message}`, { errors: [{ field, message }] })

/** Checks `{ redirectURI, code }` before anything is sent to the provider. */
export const checkCodeRequest = (
  provider: OAuthProviderName,
  data: Record<string, unknown> | undefined,
  prefix = ''
) => {
  const redirectURI = data?.redirectURI
  const code = data?.code
  if (typeof redirectURI !== 'string' || redirectURI.length === 0 || redirectURI.length > 2000) {
    throw fieldError(
      `${prefix}redirectURI`,
      'is required and must be the redirect_uri used to ask for the code'
    )
  }
  let url: URL
  try {
    url = new URL(redirectURI)
  } catch {
    throw fieldError(`${prefix}redirectURI`, 'must be an absolute http(s) URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw fieldError(`${prefix}redirectURI`, 'must be an absolute http(s) URL')
  if (provider === 'facebook' && !redirectURI.endsWith('/')) {
    throw fieldError(
      `${prefix}redirectURI`,
      "must end with '/' for facebook (use exactly the redirect_uri registered with facebook and sent to its dialog)"
    )
  }
  if (typeof code !== 'string' || code.length === 0 || code.length > 4096)
    throw fieldError(`${prefix}code`, 'is required and must be the authorization code from the provider')
  return { redirectURI, code }
}

/** A provider's JSON answer, read field by field (anything may be missing or of another type). */
type Json = { [key: string]: unknown } | undefined

interface ProviderAnswer {
  status: number
  body: Json
}

const asJson = (value: unknown): Json =>
  value && typeof value === 'object' ? (value as { [key: string]: unknown }) : undefined

// One provider call with a deadline; network failures and timeouts are a 502 naming the provider.
const call = async (
  provider: OAuthProviderName,
  what: string,
  url: string,
  init: RequestInit,
  timeoutMs: number
): Promise<ProviderAnswer> => {
  let response: Response
  let text: string
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) })
    const length = Number(response.headers.get('content-length') ?? 0)
    if (length > MAX_RESPONSE_BYTES) throw new Error('response too large')
    text = await response.text()
  } catch (caught) {
    const error = caught as { name?: unknown; message?: unknown } | undefined
    const reason =
      error?.name === 'TimeoutError' || error?.name === 'AbortError'
        ? `did not answer within ${timeoutMs} ms`
        : 'could not be reached'
    logger.warn(`${provider} ${what} failed: ${String(error?.message ?? error)}`)
    throw new BadGateway(`${displayName[provider]} ${reason}; try again later`, {
      provider,
      reason: 'provider-unavailable'
    })
  }
  let body: Json
  try {
    body = text ? asJson(JSON.parse(text)) : undefined
  } catch {
    body = undefined
  }
  return { status: response.status, body }
}

const providerError = (body: Json): string | undefined => {
  const error = body?.error
  if (typeof error === 'string') return error.slice(0, 100)
  const type = asJson(error)?.type
  if (typeof type === 'string') return type.slice(0, 100) // Graph API errors
  return undefined
}

const text = (value: unknown, max = 100) =>
  typeof value === 'string' && value.trim() ? value.trim().slice(0, max) : undefined

const toProfile = (provider: OAuthProviderName, body: Json): ProviderProfile => {
  const id = body?.sub ?? body?.id
  if (
    (typeof id !== 'string' && typeof id !== 'number') ||
    String(id).length === 0 ||
    String(id).length > 200
  ) {
    throw new BadGateway(`${displayName[provider]} returned a profile without a user id`, {
      provider,
      reason: 'provider-invalid-answer'
    })
  }
  const email =
    typeof body?.email === 'string' && /^[^\s@]+@[^\s@]+$/.test(body.email.trim()) && body.email.length <= 254
      ? (normalizeEmail(body.email) as string)
      : undefined
  let firstName = text(body?.given_name ?? body?.first_name)
  let lastName = text(body?.family_name ?? body?.last_name)
  const name = text(body?.name, 200)
  if (!firstName && !lastName && name) {
    const [first, ...rest] = name.split(/\s+/)
    firstName = first.slice(0, 100)
    lastName = rest.length ? rest.join(' ').slice(0, 100) : undefined
  }
  return {
    id: String(id),
    email,
    emailVerified: typeof body?.email_verified === 'boolean' ? body.email_verified : undefined,
    firstName,
    lastName
  }
}

/** A provider counts as configured when it has a client id (an empty one counts as none). */
export const isConfigured = (settings: OAuthProviderSettings | undefined) =>
  typeof settings?.clientId === 'string' && settings.clientId.trim() !== ''

/** 501 for a provider without a configured client: nothing is sent anywhere. */
export const requireConfigured = (
  provider: OAuthProviderName,
  settings: OAuthProviderSettings | undefined
) => {
  if (!isConfigured(settings)) {
    throw new NotImplemented(`${provider} login is not configured`, {
      provider,
      reason: 'provider-not-configured'
    })
  }
}

/** Exchanges an authorization code at the provider and reads the user's profile. */
export const exchangeCode = async (
  provider: OAuthProviderName,
  settings: OAuthProviderSettings,
  redirectURI: string,
  code: string
): Promise<ProviderProfile> => {
  requireConfigured(provider, settings)
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectURI,
    client_id: settings.clientId,
    client_secret: settings.clientSecret
  })
  const token = await call(
    provider,
    'token exchange',
    settings.tokenURL,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString()
    },
    settings.timeoutMs
  )
  const error = providerError(token.body)
  if (token.status < 200 || token.status >= 300) {
    if (
      error === 'invalid_client' ||
      error === 'unauthorized_client' ||
      token.status >= 500 ||
      ![400, 401, 403].includes(token.status)
    ) {
      logger.warn(`${provider} token exchange answered HTTP ${token.status}${error ? ` (${error})` : ''}`)
      throw new BadGateway(
        `${displayName[provider]} refused the token exchange (HTTP ${token.status}${error ? `, ${error}` : ''}); try again later`,
        {
          provider,
          reason: 'provider-error'
        }
      )
    }
    throw new NotAuthenticated(
      `${displayName[provider]} did not accept the authorization code${error ? ` (${error})` : ''}: it is wrong, expired, already used, or was issued for another redirectURI`,
      { provider, reason: 'oauth-code-rejected' }
    )
  }
  const accessToken = token.body?.access_token
  if (typeof accessToken !== 'string' || !accessToken) {
    throw new BadGateway(`${displayName[provider]} answered the token exchange without an access token`, {
      provider,
      reason: 'provider-invalid-answer'
    })
  }
  const profile = await call(
    provider,
    'profile request',
    settings.profileURL,
    { method: 'GET', headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
    settings.timeoutMs
  )
  if (profile.status < 200 || profile.status >= 300 || !profile.body || typeof profile.body !== 'object') {
    logger.warn(`${provider} profile request answered HTTP ${profile.status}`)
    throw new BadGateway(
      `${displayName[provider]} did not return the user's profile (HTTP ${profile.status}); try again later`,
      { provider, reason: 'provider-error' }
    )
  }
  return toProfile(provider, profile.body)
}

export class ProviderStrategy extends OAuthStrategy {
  constructor(
    readonly provider: OAuthProviderName,
    private readonly settings: OAuthProviderSettings,
    private readonly deps: Pick<Deps, 'stores' | 'announce' | 'clock'>
  ) {
    super()
  }

  // Provider settings live in config `oauth.<provider>` (see src/auth/settings.ts), not in grant's format.
  get configuration(): { entity: string; service?: string; entityId?: string } {
    const { entity, service, entityId } = this.authentication!.configuration
    // (the entity is always configured: `authentication.entity` in config/default.json)
    return { entity: entity as string, service, entityId }
  }

  async getEntityQuery(profile: OAuthProfile, _params: Params) {
    return { [identityField(this.provider)]: String(profile.id) }
  }

  async getEntityData(profile: OAuthProfile, _existing: unknown, _params: Params) {
    return { [identityField(this.provider)]: String(profile.id) }
  }

  /** Validates the request, then exchanges the code and reads the profile. */
  async getProfile(data: AuthenticationRequest, _params: Params): Promise<ProviderProfile> {
    const { redirectURI, code } = checkCodeRequest(this.provider, data)
    const profile = await exchangeCode(this.provider, this.settings, redirectURI, code)
    if (this.provider === 'google' && !profile.email) {
      throw new BadRequest(
        "The google profile carries no email: the email scope is missing. Ask for the 'email' and 'profile' scopes in the authorization request and sign in again",
        { provider: 'google', reason: 'email-scope-missing' }
      )
    }
    return profile
  }

  /** The account linked to this provider identity, read without hooks (so with its hidden fields). */
  async findEntity(profile: OAuthProfile, params: Params) {
    const query = await this.getEntityQuery(profile, params)
    const [account] = await this.deps.stores.accounts._find({
      query: { ...query, $limit: 1 },
      paginate: false
    })
    return account ?? null
  }

  /** First login: a new account with the profile's email, unless that email belongs to someone already. */
  async createEntity(profile: ProviderProfile, params: Params) {
    const email = profile.email
    if (!email) {
      throw new BadRequest(
        `The ${this.provider} profile carries no email, which a new account needs: allow access to the email address and sign in again`,
        {
          provider: this.provider,
          reason: 'email-scope-missing'
        }
      )
    }
    if (profile.emailVerified === false) {
      throw new NotAuthenticated(
        `The email of this ${this.provider} account is not verified with ${displayName[this.provider]}`,
        { provider: this.provider, reason: 'email-not-verified' }
      )
    }
    const { accounts } = this.deps.stores
    const takenBy = async () => (await accounts._find({ query: { email, $limit: 1 }, paginate: false }))[0]
    // Logging into (or merging with) an account by email alone would be account takeover.
    const takeover = () =>
      new Conflict(
        `An account with the email ${email} already exists. Sign in to it (with its password) and link your ${this.provider} account: POST /authentication { action: "connectOAuthAccount", provider: "${this.provider}" }`,
        { provider: this.provider, reason: 'sign-in-and-link' }
      )
    if (await takenBy()) throw takeover()
    try {
      const account = await accounts._create({
        email,
        ...(profile.firstName ? { firstName: profile.firstName } : {}),
        ...(profile.lastName ? { lastName: profile.lastName } : {}),
        ...(await this.getEntityData(profile, null, params)),
        createdAt: this.deps.clock.now(),
        createdBy: null
      })
      await this.deps.announce('accounts', 'created', account)
      return account
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== 409) throw error
      // A concurrent first login with the same identity won the race: use its account.
      const existing = await this.findEntity(profile, params)
      if (existing) return existing
      throw takeover()
    }
  }

  /** 501 when this provider has no client configured (before every other check). */
  ensureConfigured() {
    requireConfigured(this.provider, this.settings)
  }

  async authenticate(authentication: AuthenticationRequest, originalParams: AuthenticationParams) {
    this.ensureConfigured()
    const { entity } = this.configuration
    const { provider: _provider, ...params } = originalParams
    const profile = await this.getProfile(authentication, params)
    // Identities are linked only through connectOAuthAccount + applyActionCode, never by a Bearer token here.
    const account = (await this.findEntity(profile, params)) ?? (await this.createEntity(profile, params))
    return {
      authentication: { strategy: this.name! },
      // (the account's external view when read for a client: src/schema/external.ts)
      [entity]: getDispatchValue(await this.getEntity(account, originalParams))
    }
  }
}
