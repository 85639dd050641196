// The authentication actions posted to `POST /authentication { action, ... }`: connectOAuthAccount,
// applyActionCode, changeIdentity, changePassword, setupMFA, disableMFA and logout-everywhere. Each is a small function over the
// shared parts (action codes, rate limits, messenger, TOTP, OAuth strategies) held by AuthFlows.
import { randomBytes } from 'node:crypto'
import { BadRequest, Conflict, NotAuthenticated, NotFound } from '@feathersjs/errors'
import { Type, type TSchema } from '@feathersjs/typebox'
import type { AuthenticationService } from '@feathersjs/authentication'
import type { LocalStrategy } from '@feathersjs/authentication-local'
import type { Messenger } from '../providers/messaging'
import type { AppParams } from '../declarations'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { check, dataValidator } from '../schema/validators'
import { mobileNo, type Account } from '../services/accounts/accounts.schema'
import type { ActionCodes, ActionCodeRecord, ActionName } from './action-codes'
import { normalizeEmail } from './accounts'
import { sendConfirmation } from './messages'
import { endSessions, SESSION_ID, SESSION_VERSION } from './sessions'
import { refreshSession } from './refresh'
import type { Session } from '../services/sessions/sessions.schema'
import { createTotp, type Totp } from './mfa'
import { checkCodeRequest, exchangeCode, identityField, requireConfigured } from './oauth'
import { checkPasswordStrength } from './password'
import type { AuthLimits } from './rate-limit'
import { oauthProviders, type AuthSettings, type OAuthProviderName } from './settings'
import type { Change, Circumstances } from '../audit/changes'
import type { AuditAction, ChangeFields } from '../audit/chain'
import { getDispatchValue } from '@feathersjs/schema'

type StoredAccount = Stored<Account>

/** A body of an action, checked against its schema (`actionSchemas`). */
type Body = Record<string, unknown>

/** What the flows need from the composition root (src/authentication.ts) besides the app's dependencies. */
export interface AuthHost {
  /** The authentication service: its local strategy hashes and compares passwords, its jwt strategy reads tokens. */
  authService(): AuthenticationService
  /** An account as it may leave the server (the accounts service's external view). */
  present(account: StoredAccount): Promise<StoredAccount>
  /** Appends the audit event of one change, durably (src/audit/changes.ts). */
  recordChange(change: Change, params: Circumstances): Promise<void>
}

const actionField = (name: string) => Type.Literal(name)
const passwordField = () => Type.String({ minLength: 1, maxLength: 1000 })
const otpField = () => Type.String({ minLength: 1, maxLength: 20 })

export const actionSchemas: Record<string, TSchema> = {
  connectOAuthAccount: Type.Object(
    {
      action: actionField('connectOAuthAccount'),
      provider: Type.Union(oauthProviders.map((p) => Type.Literal(p)))
    },
    { additionalProperties: false }
  ),
  applyActionCode: Type.Object(
    {
      action: actionField('applyActionCode'),
      code: Type.String({ minLength: 1, maxLength: 100 }),
      payload: Type.Optional(
        Type.Object(
          {
            code: Type.Optional(Type.String({ maxLength: 4096 })),
            redirectURI: Type.Optional(Type.String({ maxLength: 2000 })),
            mfaCode: Type.Optional(otpField()),
            password: Type.Optional(Type.String({ maxLength: 1000 }))
          },
          { additionalProperties: false }
        )
      )
    },
    { additionalProperties: false }
  ),
  sendClaimCode: Type.Object(
    { action: actionField('sendClaimCode'), email: Type.String({ format: 'email', maxLength: 254 }) },
    { additionalProperties: false }
  ),
  changeIdentity: Type.Object(
    {
      action: actionField('changeIdentity'),
      email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
      mobileNo: Type.Optional(mobileNo()),
      password: passwordField()
    },
    { additionalProperties: false }
  ),
  changePassword: Type.Object(
    {
      action: actionField('changePassword'),
      password: Type.Optional(passwordField()),
      newPassword: Type.String({ maxLength: 1000 })
    },
    { additionalProperties: false }
  ),
  setupMFA: Type.Object(
    { action: actionField('setupMFA'), password: passwordField() },
    { additionalProperties: false }
  ),
  disableMFA: Type.Object(
    { action: actionField('disableMFA'), password: passwordField(), mfaCode: otpField() },
    { additionalProperties: false }
  ),
  'logout-everywhere': Type.Object(
    { action: actionField('logout-everywhere') },
    { additionalProperties: false }
  ),
  refreshAccessToken: Type.Object(
    {
      action: actionField('refreshAccessToken'),
      refreshToken: Type.String({ minLength: 1, maxLength: 200 })
    },
    { additionalProperties: false }
  )
}

export const actionNames = Object.keys(actionSchemas)

/** The payload of applyActionCode, as its schema lets it through. */
type CodePayload = {
  code?: string
  redirectURI?: string
  mfaCode?: string
  password?: string
}

/** The HTTP code of a Feathers error (undefined for other errors). */
const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code

class WrongMfaCode extends BadRequest {
  constructor() {
    super(
      "Invalid 'payload.mfaCode': it is not the current code of the authenticator app set up with this secret",
      {
        errors: [{ field: 'payload.mfaCode', message: 'is not a current code' }],
        reason: 'mfa-code-invalid'
      }
    )
  }
}

export class AuthFlows {
  readonly totp: Totp
  // A hash of a random password: compared against when an email is unknown, so both cases take as long.
  private dummyHash?: Promise<string>

  constructor(
    private readonly deps: Deps,
    private readonly host: AuthHost,
    readonly settings: AuthSettings,
    readonly limits: AuthLimits,
    readonly messenger: Messenger,
    readonly codes: ActionCodes
  ) {
    this.totp = createTotp(settings.mfa.window)
  }

  private get authService() {
    return this.host.authService()
  }

  private get accounts() {
    return this.deps.stores.accounts
  }

  private get local() {
    return this.authService.getStrategy('local') as LocalStrategy
  }

  /** Runs one action; `data` is the request body, `params` the call's params. */
  async run(data: Body, params: AppParams) {
    const action = data.action
    if (typeof action !== 'string' || !Object.hasOwn(actionSchemas, action)) {
      throw new BadRequest(`Invalid 'action': must be one of: ${actionNames.join(', ')}`, {
        errors: [{ field: 'action', message: `must be one of: ${actionNames.join(', ')}` }]
      })
    }
    const body = check<Body>(dataValidator, actionSchemas[action], { ...data }, 'data')
    switch (action) {
      case 'connectOAuthAccount':
        return this.connectOAuthAccount(body, params)
      case 'applyActionCode':
        return this.applyActionCode(body, params)
      case 'sendClaimCode':
        return this.sendClaimCode(body, params)
      case 'changeIdentity':
        return this.changeIdentity(body, params)
      case 'changePassword':
        return this.changePassword(body, params)
      case 'setupMFA':
        return this.setupMFA(body, params)
      case 'logout-everywhere':
        return this.logoutEverywhere(params)
      case 'refreshAccessToken':
        return this.refreshAccessToken(body, params)
      default:
        return this.disableMFA(body, params)
    }
  }

  /** The account of the Bearer token (stored copy, hidden fields included), or undefined without one. */
  private async caller(params: AppParams): Promise<StoredAccount | undefined> {
    let id: string | undefined
    if (params.authentication) {
      const { provider: _provider, authentication, ...rest } = params
      const result = await this.authService.authenticate(authentication, rest, 'jwt')
      id = result.account?.id
    } else if (!params.provider && params.account?.id) {
      id = params.account.id // an internal call acting as an account
    }
    if (!id) return undefined
    return this.accounts._get(id)
  }

  private async requireCaller(params: AppParams, action: string) {
    const account = await this.caller(params)
    if (!account) throw new NotAuthenticated(`'${action}' needs the Bearer token of the account`)
    return account
  }

  /** The audit event of a change of the account's sign-in settings (answered as a POST /authentication: 201). */
  private recordAccountChange(
    action: AuditAction,
    accountId: string,
    before: ChangeFields,
    after: ChangeFields,
    params: AppParams
  ) {
    return this.host.recordChange(
      {
        action,
        service: 'authentication',
        actor: accountId,
        account: accountId,
        ids: [accountId],
        before,
        after,
        status: 201
      },
      params
    )
  }

  /** Checks the current password of a signed-in account; wrong tries count like failed logins. */
  async verifyPassword(account: StoredAccount, password: unknown, params: AppParams) {
    await this.limits.failedLoginsPerEmail.check(account.email)
    await this.limits.loginsPerIp.consume(params.ip)
    if (!account.password) {
      throw new BadRequest(
        'This account has no password yet (it signs in through OAuth); set one first with changePassword',
        { reason: 'no-password' }
      )
    }
    const ok =
      typeof password === 'string' &&
      (await this.local.comparePassword(account, password).then(
        () => true,
        () => false
      ))
    if (!ok) {
      await this.limits.failedLoginsPerEmail.record(account.email)
      throw new NotAuthenticated("Invalid 'password': it is not the account's current password", {
        reason: 'invalid-password',
        errors: [{ field: 'password', message: 'is not correct' }]
      })
    }
  }

  /**
   * Checks a TOTP of an account with MFA on and claims its time step: a code signs in (or turns MFA off) once,
   * a replay within its 30 s step is refused like a wrong code. The claim is one conditional store update, so
   * of two concurrent uses of one code only one succeeds.
   */
  private async useTotp(account: StoredAccount, token: unknown) {
    const step = this.totp.step(token, account.mfaSecret)
    const claimed =
      step !== null &&
      (await this.accounts
        ._patch(
          account.id,
          { mfaLastStep: step },
          { query: { $or: [{ mfaLastStep: { $exists: false } }, { mfaLastStep: { $lt: step } }] } }
        )
        .then(
          () => true,
          (error: unknown) => {
            if (error instanceof NotFound) return false
            throw error
          }
        ))
    if (!claimed) {
      const message =
        step === null
          ? "Invalid 'mfaCode': it is not the current code of the authenticator app"
          : "Invalid 'mfaCode': this code was already used; wait for the next code of the authenticator app"
      throw new NotAuthenticated(message, {
        reason: 'mfa-required',
        errors: [{ field: 'mfaCode', message: step === null ? 'is not a current code' : 'was already used' }]
      })
    }
  }

  /** Password login (the `local` strategy): rate limits, then password, then the second factor. */
  async passwordLogin(data: Record<string, unknown>, params: AppParams) {
    const email = normalizeEmail(data.email) as string
    // (both are checked to be strings before: src/authentication.ts)
    const password = typeof data.password === 'string' ? data.password : ''
    await this.limits.failedLoginsPerEmail.check(email)
    await this.limits.loginsPerIp.consume(params.ip)
    let result
    try {
      const [account] = await this.accounts._find({ query: { email, $limit: 1 }, paginate: false })
      // An unknown email and an account without a password (OAuth only) take as long as a wrong password.
      if (!account || !account.password) {
        this.dummyHash ??= this.local.hashPassword(randomBytes(16).toString('hex'), {})
        await this.local.comparePassword({ password: await this.dummyHash }, password).catch(() => undefined)
        throw new NotAuthenticated('Invalid login')
      }
      await this.local.comparePassword(account, password)
      if (account.mfaEnabled) {
        if (data.mfaCode === undefined) {
          throw new NotAuthenticated(
            'This account uses two-factor authentication: send the current code of the authenticator app as mfaCode',
            { reason: 'mfa-required' }
          )
        }
        await this.useTotp(account, data.mfaCode)
      }
      // The token gets the session version read together with the password it was checked against.
      result = {
        authentication: { strategy: 'local' },
        account: getDispatchValue(await this.local.getEntity(account, params)),
        [SESSION_VERSION]: account.sessionVersion ?? 0
      }
    } catch (error) {
      if (codeOf(error) === 401) await this.limits.failedLoginsPerEmail.record(email)
      throw error
    }
    await this.limits.failedLoginsPerEmail.reset(email)
    return result
  }

  private async connectOAuthAccount(body: Body, params: AppParams) {
    const account = await this.requireCaller(params, 'connectOAuthAccount')
    const provider = body.provider as OAuthProviderName
    requireConfigured(provider, this.settings.oauth[provider])
    const { code, expiresAt } = await this.codes.issue(
      account.id,
      'connectOAuthAccount',
      { provider },
      'token',
      provider
    )
    return { action: 'connectOAuthAccount', provider, code, expiresAt }
  }

  private async applyActionCode(body: Body, params: AppParams) {
    await this.limits.actionCodesPerIp.consume(params.ip)
    const payload = (body.payload ?? {}) as CodePayload
    const linking = payload.code !== undefined || payload.redirectURI !== undefined
    const confirmingMfa = payload.mfaCode !== undefined
    const claiming = payload.password !== undefined
    if ([linking, confirmingMfa, claiming].filter(Boolean).length > 1) {
      throw new BadRequest(
        "Invalid 'payload': one of { code, redirectURI } to link an OAuth account, { mfaCode } to turn on MFA or { password } to claim an account",
        {
          errors: [{ field: 'payload', message: 'mixes two actions' }]
        }
      )
    }
    const expected: ActionName[] = linking
      ? ['connectOAuthAccount']
      : confirmingMfa
        ? ['setupMFA']
        : claiming
          ? ['claimAccount']
          : ['changeIdentity', 'changePassword']
    const caller = await this.caller(params)
    const limits = this.limits
    const record = await this.codes.redeem({
      code: body.code,
      accountId: caller?.id,
      action: expected,
      checkAccount: (accountId) => limits.failedActionCodesPerAccount.check(accountId),
      onWrongTry: (accountId) => limits.failedActionCodesPerAccount.record(accountId),
      isWrongTry: (error) => error instanceof WrongMfaCode,
      apply: (code) => this.applyCode(code, payload, params)
    })
    return record
  }

  // Carries out the action of a checked and claimed code. A new password, a new identity and turning MFA on end
  // every session of the account (src/auth/sessions.ts); the caller's own socket stays connected, signed out.
  private async applyCode(code: ActionCodeRecord, payload: CodePayload, params: AppParams) {
    const accounts = this.accounts
    const account = await accounts._get(code.account)
    const now = this.deps.clock.now()
    let patched: StoredAccount | undefined
    switch (code.action) {
      case 'connectOAuthAccount': {
        const provider = code.data.provider as OAuthProviderName
        const { redirectURI, code: oauthCode } = checkCodeRequest(provider, payload, 'payload.')
        const profile = await exchangeCode(provider, this.settings.oauth[provider], redirectURI, oauthCode)
        const field = identityField(provider)
        const [owner] = await accounts._find({ query: { [field]: profile.id, $limit: 1 }, paginate: false })
        const linkedElsewhere = () =>
          new Conflict(`This ${provider} account is already linked to another account`, {
            provider,
            reason: 'identity-linked-elsewhere'
          })
        if (owner && owner.id !== account.id) throw linkedElsewhere()
        try {
          patched = await accounts._patch(account.id, { [field]: profile.id, updatedAt: now })
        } catch (error) {
          if (codeOf(error) === 409) throw linkedElsewhere()
          throw error
        }
        await this.deps.announce('accounts', 'patched', patched)
        // Which provider is linked, never the provider's user id.
        await this.recordAccountChange(
          'identity-link',
          account.id,
          { [`${provider}Linked`]: !!account[field] },
          { [`${provider}Linked`]: true },
          params
        )
        return { action: code.action, provider, account: await this.host.present(patched) }
      }
      case 'setupMFA': {
        if (account.mfaEnabled)
          throw new Conflict('MFA is already on for this account', { reason: 'mfa-enabled' })
        if (!account.mfaPending)
          throw new BadRequest('No MFA set-up is waiting for this code; call setupMFA again', {
            reason: 'mfa-not-pending'
          })
        if (!this.totp.verify(payload.mfaCode, account.mfaPending)) throw new WrongMfaCode()
        patched = await endSessions(this.deps, account.id, 'mfa-changed', {
          change: {
            mfaSecret: account.mfaPending,
            mfaEnabled: true,
            updatedAt: now,
            $unset: { mfaPending: '', mfaLastStep: '' }
          },
          announce: true,
          keep: params.connection
        })
        await this.recordAccountChange(
          'mfa-enable',
          account.id,
          { mfaEnabled: false },
          { mfaEnabled: true },
          params
        )
        break
      }
      case 'changeIdentity': {
        const change: Record<string, string> = {}
        if (typeof code.data.email === 'string') {
          const [owner] = await accounts._find({
            query: { email: code.data.email, $limit: 1 },
            paginate: false
          })
          if (owner && owner.id !== account.id)
            throw new Conflict('The new email now belongs to another account', {
              errors: [{ field: 'email', message: 'is already registered' }]
            })
          change.email = code.data.email
        }
        if (typeof code.data.mobileNo === 'string') change.mobileNo = code.data.mobileNo
        try {
          patched = await endSessions(this.deps, account.id, 'identity-changed', {
            change: { ...change, updatedAt: now },
            announce: true,
            keep: params.connection
          })
        } catch (error) {
          if (codeOf(error) === 409)
            throw new Conflict('The new email now belongs to another account', {
              errors: [{ field: 'email', message: 'is already registered' }]
            })
          throw error
        }
        const before = Object.fromEntries(Object.keys(change).map((key) => [key, account[key] ?? null]))
        await this.recordAccountChange('identity-change', account.id, before, change, params)
        break
      }
      case 'claimAccount': {
        // The first password of an account made for the person (registered by staff, imported): the strength
        // rules of sign-up; set only while the account still has none, in one conditional write.
        checkPasswordStrength(
          this.settings.passwordPolicy,
          payload.password,
          'payload.password',
          account.email
        )
        const alreadySet = () =>
          new Conflict('This account already has a password: sign in, or change it from the account', {
            reason: 'password-set'
          })
        if (account.password) throw alreadySet()
        const password = await this.local.hashPassword(payload.password as string, {}) // (checked above)
        try {
          patched = await accounts._patch(
            account.id,
            { password, updatedAt: now },
            { query: { password: { $exists: false } } }
          )
        } catch (error) {
          if (error instanceof NotFound) throw alreadySet()
          throw error
        }
        await this.deps.announce('accounts', 'patched', patched)
        await this.recordAccountChange(
          'password-change',
          account.id,
          { passwordSet: false },
          { passwordSet: true },
          params
        )
        break
      }
      case 'changePassword':
        patched = await endSessions(this.deps, account.id, 'password-changed', {
          change: { password: code.data.passwordHash, updatedAt: now },
          announce: true,
          keep: params.connection
        })
        // Whether the account had a password (an OAuth-only account setting its first one), never the hash.
        await this.recordAccountChange(
          'password-change',
          account.id,
          { passwordSet: !!account.password },
          { passwordSet: true },
          params
        )
        break
    }
    return { action: code.action, account: patched && (await this.host.present(patched)) }
  }

  // Issues a message code and sends it; a code whose message could not go out is withdrawn.
  private async sendCode(
    account: StoredAccount,
    action: 'changeIdentity' | 'changePassword',
    data: Record<string, unknown>,
    to: { email?: string; mobileNo?: string },
    purpose: string,
    explanation: string
  ) {
    await this.limits.messagesPerAccount.consume(account.id)
    const { code, expiresAt, id } = await this.codes.issue(account.id, action, data, 'message')
    try {
      await sendConfirmation(this.messenger, {
        to,
        purpose,
        explanation,
        code,
        expiresInMs: this.codes.expiresInMs
      })
    } catch (error) {
      await this.codes.revoke(id)
      throw error
    }
    return { action, sentTo: to, expiresAt }
  }

  /**
   * Mails a code to claim an account that has no password yet (made by a facility's staff or a FHIR import), to
   * be applied with `payload: { password }`. The answer is the same whether the address belongs to such an
   * account, to one with a password or to none, and the message goes out after the answer, so neither the answer
   * nor its timing tells who has an account.
   */
  private async sendClaimCode(body: Body, params: AppParams) {
    await this.limits.actionCodesPerIp.consume(params.ip)
    const email = normalizeEmail(body.email) as string // (checked by the action's schema)
    const answer = {
      action: 'sendClaimCode',
      email,
      expiresInMs: this.codes.expiresInMs,
      message: 'If this address belongs to an account without a password, a code to set one was mailed to it'
    }
    const [account] = await this.accounts._find({ query: { email, $limit: 1 }, paginate: false })
    if (!account || account.password) return answer
    void this.mailClaimCode(account).catch((error: unknown) =>
      this.deps.logger.warn(
        `The claim code of an account could not be mailed: ${error instanceof Error ? error.message : String(error)}`
      )
    )
    return answer
  }

  /** Issues and mails the code that sets the first password of `account` (its earlier claim codes stop working). */
  async mailClaimCode(account: StoredAccount) {
    await this.limits.messagesPerAccount.consume(account.id)
    const { code, id } = await this.codes.issue(account.id, 'claimAccount', {}, 'message')
    try {
      await sendConfirmation(this.messenger, {
        to: { email: account.email },
        purpose: 'Set Your Password',
        explanation: `An account was made for ${account.email} by a facility that cares for you. To sign in, choose a password: in the console, "First time here? Set your password", enter this code (or POST /authentication { "action": "applyActionCode", "code": "<code>", "payload": { "password": "<new password>" } }).`,
        code,
        expiresInMs: this.codes.expiresInMs
      })
    } catch (error) {
      await this.codes.revoke(id)
      throw error
    }
  }

  private async changeIdentity(body: Body, params: AppParams) {
    const account = await this.requireCaller(params, 'changeIdentity')
    if (body.email === undefined && body.mobileNo === undefined) {
      throw new BadRequest("Invalid data: send the new 'email' and/or 'mobileNo'", {
        errors: [{ field: 'email', message: 'or mobileNo is required' }]
      })
    }
    const email = body.email === undefined ? undefined : (normalizeEmail(body.email) as string)
    const change: { email?: string; mobileNo?: string } = {}
    if (email !== undefined && email !== account.email) change.email = email
    if (typeof body.mobileNo === 'string' && body.mobileNo !== account.mobileNo)
      change.mobileNo = body.mobileNo
    if (!change.email && !change.mobileNo)
      throw new BadRequest('The new identity is the same as the current one', {
        errors: [{ field: body.email !== undefined ? 'email' : 'mobileNo', message: 'is unchanged' }]
      })
    await this.verifyPassword(account, body.password, params)
    const accounts = this.accounts
    if (change.email) {
      const [owner] = await accounts._find({ query: { email: change.email, $limit: 1 }, paginate: false })
      if (owner)
        throw new Conflict('An account with this email already exists', {
          errors: [{ field: 'email', message: 'is already registered' }]
        })
    }
    if (change.mobileNo) {
      const [owner] = await accounts._find({
        query: { mobileNo: change.mobileNo, $limit: 1 },
        paginate: false
      })
      if (owner)
        throw new Conflict('Another account already uses this mobile number', {
          errors: [{ field: 'mobileNo', message: 'is already registered' }]
        })
    }
    const what = [
      change.email && `email to ${change.email}`,
      change.mobileNo && `mobile number to ${change.mobileNo}`
    ]
      .filter(Boolean)
      .join(' and ')
    return this.sendCode(
      account,
      'changeIdentity',
      change,
      change,
      'Confirm Change Identity',
      `A request was made to change the sign-in ${what} of the account ${account.email}. To confirm it, apply this code (POST /authentication { "action": "applyActionCode", "code": "<code>" }).`
    )
  }

  private async changePassword(body: Body, params: AppParams) {
    const account = await this.requireCaller(params, 'changePassword')
    checkPasswordStrength(this.settings.passwordPolicy, body.newPassword, 'newPassword', account.email)
    if (account.password) {
      if (body.password === undefined)
        throw new BadRequest("Invalid data: 'password' (the current password) is required", {
          errors: [{ field: 'password', message: 'is required' }]
        })
      await this.verifyPassword(account, body.password, params)
      if (body.password === body.newPassword)
        throw new BadRequest("Invalid 'newPassword': it is the current password", {
          errors: [{ field: 'newPassword', message: 'must differ from the current password' }]
        })
    }
    const passwordHash = await this.local.hashPassword(body.newPassword as string, {}) // (checked by the policy above)
    return this.sendCode(
      account,
      'changePassword',
      { passwordHash },
      { email: account.email },
      'Confirm Password Change',
      `A request was made to change the password of the account ${account.email}. To confirm it, apply this code (POST /authentication { "action": "applyActionCode", "code": "<code>" }).`
    )
  }

  private async setupMFA(body: Body, params: AppParams) {
    const account = await this.requireCaller(params, 'setupMFA')
    await this.verifyPassword(account, body.password, params)
    if (account.mfaEnabled)
      throw new Conflict('MFA is already on for this account; turn it off first (disableMFA)', {
        reason: 'mfa-enabled'
      })
    const secret = this.totp.generateSecret()
    await this.accounts._patch(account.id, { mfaPending: secret })
    const { code, expiresAt } = await this.codes.issue(account.id, 'setupMFA', {}, 'token')
    return {
      action: 'setupMFA',
      code,
      secret,
      otpauthURI: this.totp.uri(account.email, this.settings.mfa.issuer, secret),
      expiresAt
    }
  }

  private async disableMFA(body: Body, params: AppParams) {
    const account = await this.requireCaller(params, 'disableMFA')
    await this.verifyPassword(account, body.password, params)
    if (!account.mfaEnabled)
      throw new BadRequest('MFA is not on for this account', { reason: 'mfa-not-enabled' })
    try {
      await this.useTotp(account, body.mfaCode)
    } catch (error) {
      await this.limits.failedLoginsPerEmail.record(account.email)
      throw error
    }
    // Turning MFA off ends every session, like turning it on.
    const patched = await endSessions(this.deps, account.id, 'mfa-changed', {
      change: {
        mfaEnabled: false,
        updatedAt: this.deps.clock.now(),
        $unset: { mfaSecret: '', mfaPending: '', mfaLastStep: '' }
      },
      announce: true,
      keep: params.connection
    })
    await this.recordAccountChange(
      'mfa-disable',
      account.id,
      { mfaEnabled: true },
      { mfaEnabled: false },
      params
    )
    return { action: 'disableMFA', account: await this.host.present(patched) }
  }

  // A new access token and refresh token for a refresh token (src/auth/refresh.ts: rotation, grace window, reuse),
  // rate-limited like logins. The answer carries the account, so a Socket.IO connection refreshing is signed in
  // with the new token at once. Reuse ends the session and is an audit event of the account (`refresh-reuse`).
  private async refreshAccessToken(body: Body, params: AppParams) {
    await this.limits.loginsPerIp.consume(params.ip)
    const deadAccount = () =>
      new NotAuthenticated('This refresh token is not valid (its account is gone); sign in again', {
        reason: 'refresh-token-invalid'
      })
    const accountOf = (session: Stored<Session>) =>
      this.accounts._get(session.account).catch((error: unknown) => {
        if (error instanceof NotFound) throw deadAccount()
        throw error
      })
    const outcome = await refreshSession(
      this.deps,
      this.deps.settings.get('sessions'),
      body.refreshToken as string, // (checked by the action's schema)
      async (session) => {
        const account = await accountOf(session)
        const authResult = {
          authentication: { strategy: 'refresh' },
          account,
          [SESSION_VERSION]: account.sessionVersion ?? 0,
          [SESSION_ID]: session.id
        }
        const [payload, options] = await Promise.all([
          this.authService.getPayload(authResult, params),
          this.authService.getTokenOptions(authResult, params)
        ])
        return this.authService.createAccessToken(payload, options)
      }
    )
    if (outcome.kind === 'reused') {
      await this.host.recordChange(
        {
          action: 'refresh-reuse',
          service: 'authentication',
          actor: null,
          account: outcome.session.account,
          ids: [outcome.session.id],
          before: { session: outcome.session.id },
          after: { session: null },
          status: 401
        },
        params
      )
      throw new NotAuthenticated(
        'This refresh token was already used, so its session was ended to protect the account; sign in again',
        { reason: 'refresh-reuse' }
      )
    }
    const { accessToken, refreshToken } = outcome.pair
    const account = await accountOf(outcome.session)
    return {
      accessToken,
      refreshToken,
      authentication: {
        strategy: 'refresh',
        payload: await this.authService.verifyAccessToken(accessToken)
      },
      account: await this.host.present(account),
      session: outcome.session.id
    }
  }

  // Ends every session of the caller's account, this one included: every token issued so far is refused from
  // now on (on every instance) and the account's open sockets are cut. Only a hidden field changes, so nothing
  // is announced.
  private async logoutEverywhere(params: AppParams) {
    const account = await this.requireCaller(params, 'logout-everywhere')
    await endSessions(this.deps, account.id, 'signed-out-everywhere', { keep: params.connection })
    return { action: 'logout-everywhere', account: account.id, endedAt: this.deps.clock.now() }
  }
}
