// Sessions end for real. Every access token carries the account's `sessionVersion` at issue time (claim `sv`);
// the jwt strategy, which every REST call and every Socket.IO call authenticates through, refuses a token whose
// version is not the account's current one (a missing field counts as version 0, so tokens issued before this
// existed stay valid until the first bump). Bumping the version in the store (atomically, `$inc`) thus ends
// every token issued before, on every instance. Open Socket.IO connections of the account in this process are
// also cut at once: they leave every channel, lose their authentication, are sent the `session-ended` event
// (src/schema/session-ended.shared.ts: why, in a sentence) and are disconnected (except the connection that made the
// call, which stays connected but anonymous so it still gets its answer).
// Several instances: the version check holds everywhere (it reads the store); each instance cuts its own sockets,
// the others on a notice (REDIS_URL), with the same reason.
// Signing out one session (Feathers' logout: `DELETE /authentication/<token>`, the client's `logout()`) ends that
// token for real too: its `jti` goes on the account's `revokedTokens` until the token expires (expired entries are
// dropped at each sign-out), the same per-call account read refuses it from then on, on every instance, and this
// process's other connections authenticated with that token are cut.
// The store side (the version bump, the revoked list) takes the app's dependencies (`endSessions(deps, …)`); the
// realtime side (which connection is whose, and cutting them) is the app's `SessionConnections`, handed to the
// domain as `deps.sessions`.
import {
  AuthenticationService,
  JWTStrategy,
  type AuthenticationParams,
  type AuthenticationRequest,
  type AuthenticationResult
} from '@feathersjs/authentication'
import { NotAuthenticated, NotFound } from '@feathersjs/errors'
import { createSecretKey, type KeyObject } from 'node:crypto'
import type { Params, RealTimeConnection } from '@feathersjs/feathers'
import type { Server, Socket } from 'socket.io'
import type { Application } from '../declarations'
import type { Deps, SessionCuts } from '../deps'
import type { Logger } from '../logger'
import type { Account } from '../services/accounts/accounts.schema'
import type { Stored } from '../store'
import { ACCESS_VERSION, accessVersionOf } from '../access/context'
import { onNotice, sendNotice } from '../cluster/notices'
import { endSession, liveSession, removeAccountSessions, startSession, SID_CLAIM } from './refresh'
import type { SessionSettings } from './refresh'
import {
  SESSION_ENDED_EVENT,
  sessionEnded as endedFor,
  sessionEndMessages,
  type SessionEndReason
} from '../schema/session-ended.shared'

/** The JWT claim holding the session version. */
export const SESSION_CLAIM = 'sv'
/** On an authentication result: the session version read together with the credentials that were checked. */
export const SESSION_VERSION = Symbol('sessionVersion')

const versionOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)

const sessionEnded = () =>
  new NotAuthenticated('This session has ended; sign in again', { reason: 'session-ended' })

// jsonwebtoken's refusals (`jwt expired`, `jwt malformed`, `invalid signature`, …) in words for people; the
// library's error name stays out of the answer, `data.reason` is what clients branch on.
const tokenRefusal = (error: unknown) => {
  const name = (error as { data?: { name?: unknown } })?.data?.name // Feathers keeps jsonwebtoken's error fields in `data`
  if (name === 'TokenExpiredError')
    return new NotAuthenticated('The access token has expired; sign in again', { reason: 'token-expired' })
  return new NotAuthenticated('The access token is invalid', { reason: 'token-invalid' })
}

/**
 * The jwt strategy with the session version check, reading the account once per call: that one read is the
 * entity (without its hidden fields on external calls, as the accounts service would answer), the session check,
 * and the version stamp of the cached access context (src/access/context.ts). A deleted account's token is a 401.
 */
export class SessionJWTStrategy extends JWTStrategy {
  constructor(
    private readonly deps: Deps,
    /** The account as the accounts service shows it to clients (its external view). */
    private readonly present: (account: Stored<Account>) => Promise<Stored<Account>>
  ) {
    super()
  }

  async authenticate(authentication: AuthenticationRequest, params: AuthenticationParams) {
    const { accessToken } = authentication
    if (!accessToken) throw new NotAuthenticated('No access token')
    const payload = await this.authentication!.verifyAccessToken(accessToken, params.jwt) // (set when the strategy is registered)
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw sessionEnded()
    const account = await this.deps.stores.accounts._get(payload.sub).catch((error: unknown) => {
      if (error instanceof NotFound) throw sessionEnded()
      throw error
    })
    if (versionOf(payload[SESSION_CLAIM]) !== versionOf(account.sessionVersion)) throw sessionEnded()
    // A token of a session (claim `sid`) lives only as long as its session: ended, expired or revoked is a 401.
    const sid = payload[SID_CLAIM]
    if (typeof sid === 'string' && !(await liveSession(this.deps, sid, account.id))) throw sessionEnded()
    if (
      typeof payload.jti === 'string' &&
      Array.isArray(account.revokedTokens) &&
      account.revokedTokens.some((revoked) => revoked?.jti === payload.jti)
    ) {
      throw sessionEnded()
    }
    const entity: Stored<Account> & { [ACCESS_VERSION]?: number } = params.provider
      ? await this.present(account)
      : { ...account }
    entity[ACCESS_VERSION] = accessVersionOf(account)
    return {
      accessToken,
      authentication: { strategy: 'jwt', accessToken, payload },
      [this.configuration.entity]: entity
    }
  }
}

/** The jwt strategy whose connections are told when their access token expires (`session-ended`, `expired`). */
export class ExpiringJWTStrategy extends SessionJWTStrategy {
  // Feathers signs a connection out when its token expires by disconnecting it, silently. Its timer is replaced by
  // one that first sends the `session-ended` event (reason `expired`), so the client knows why and can refresh
  // and sign in again; re-authenticating before expiry (a new access token) replaces the timer, as in Feathers.
  async handleConnection(event: string, connection: RealTimeConnection, authResult?: AuthenticationResult) {
    await super.handleConnection(event as 'login', connection, authResult)
    const exp = authResult?.authentication?.payload?.exp
    if (event !== 'login' || !authResult?.accessToken || typeof exp !== 'number') return
    // (Feathers' timers are long-timeout's or Node's: both have close(), which Feathers' clearing calls)
    const timers = this.expirationTimers as WeakMap<object, { close(): void }>
    timers.get(connection)?.close()
    // (capped: setTimeout's longest delay is about 24.8 days, longer than any access token lives)
    const delay = Math.min(Math.max(exp * 1000 - Date.now(), 0), 2 ** 31 - 1)
    const timer = setTimeout(() => {
      ;(connection as SocketCarrier)[SOCKET]?.emit(SESSION_ENDED_EVENT, endedFor('expired'))
      this.app?.emit('disconnect', connection)
    }, delay)
    timers.set(connection, timer)
  }
}

/** What a login's result carries until the refresh token is added to it (SessionAuthenticationService.create). */
const STARTED = Symbol('startedSession')
type Started = { [STARTED]?: { refreshToken?: string } }
/** On an authentication result: the session an access token is issued for (a refresh, not a new login). */
export const SESSION_ID = Symbol('sessionId')

/** How many verified access tokens an app keeps (about one per signed-in client). */
const VERIFIED_TOKENS_KEPT = 20_000

/** Puts the account's session version into every access token it issues. */
export class SessionAuthenticationService extends AuthenticationService {
  constructor(
    app: Application,
    private readonly deps: Deps
  ) {
    super(app)
  }

  async getPayload(authResult: AuthenticationResult, params: Params) {
    const payload = await super.getPayload(authResult, params)
    const id = authResult.account?.id
    if (!id) return payload
    // (the symbol key is not in the result's type)
    const carried = authResult as { [SESSION_VERSION]?: unknown }
    const version =
      SESSION_VERSION in carried
        ? carried[SESSION_VERSION]
        : (await this.deps.stores.accounts._get(id)).sessionVersion
    // A new login starts a session (its refresh token goes beside the access token); a refresh keeps its own.
    const carriedSession = (authResult as { [SESSION_ID]?: unknown })[SESSION_ID]
    let sid = typeof carriedSession === 'string' ? carriedSession : undefined
    if (!sid) {
      const started = await startSession(this.deps, this.sessionSettings(), id, {
        ip: (params as { ip?: string }).ip,
        userAgent: (params as { userAgent?: string }).userAgent
      })
      sid = started.session.id
      const holder = (params as Started)[STARTED]
      if (holder) holder.refreshToken = started.refreshToken
    }
    return { ...payload, [SESSION_CLAIM]: versionOf(version), [SID_CLAIM]: sid }
  }

  sessionSettings(): SessionSettings {
    return this.deps.settings.get('sessions')
  }

  /** A login answers a refresh token beside the access token (never sent as an event: see runActions). */
  async create(data: AuthenticationRequest, params?: AuthenticationParams) {
    const holder: { refreshToken?: string } = {}
    // (the holder rides on the call's params, which getPayload receives; the symbol key is not in their type)
    const callParams = { ...(params ?? {}), [STARTED]: holder } as AuthenticationParams
    const result = await super.create(data, callParams)
    return holder.refreshToken ? { ...result, refreshToken: holder.refreshToken } : result
  }

  /** Feathers' logout: the token that signed out is refused from now on (not only forgotten by the client). */
  async remove(id: string | null, params: AuthenticationParams) {
    const result = await super.remove(id, params)
    const payload = result?.authentication?.payload
    // Signing out ends the token's session: its refresh token and every access token of it.
    if (typeof payload?.sub === 'string' && typeof payload[SID_CLAIM] === 'string')
      await endSession(
        this.deps,
        { id: payload[SID_CLAIM], account: payload.sub },
        'signed-out',
        params.connection
      )
    if (typeof payload?.sub === 'string' && typeof payload.jti === 'string') {
      await revokeToken(
        this.deps,
        payload.sub,
        payload.jti,
        typeof payload.exp === 'number' ? payload.exp * 1000 : this.deps.clock.now() + 86400000,
        params.connection
      )
    }
    return result
  }

  // jsonwebtoken first tries to parse a string secret as a public key on every sign and verify (and fails):
  // about a sixth of a request's CPU. The same secret as a KeyObject, made once, skips that; tokens are unchanged.
  private secretKey?: KeyObject

  private key(): KeyObject {
    this.secretKey ??= createSecretKey(Buffer.from(this.configuration.secret as string, 'utf8'))
    return this.secretKey
  }

  // Access tokens live `sessions.accessTokenTtlMs` (whole seconds, at least one), unless the caller sets expiresIn.
  async createAccessToken(
    ...[payload, optsOverride, secretOverride]: Parameters<AuthenticationService['createAccessToken']>
  ) {
    const expiresIn = Math.max(1, Math.round(this.sessionSettings().accessTokenTtlMs / 1000))
    return super.createAccessToken(payload, { expiresIn, ...optsOverride }, secretOverride ?? this.key())
  }

  /**
   * Tokens whose signature and claims checked out, with their payloads: a token is verified once, not at every
   * call. A kept token is answered again only inside its validity window, read from the clock at each call as the
   * full check reads it (seconds: from `nbf` until before `exp`); outside it, the full check decides. What a
   * signature proves never changes (the secret is fixed for the life of the app); whether the token's session
   * still stands is checked at every call by the strategy. Bounded: the oldest go first.
   */
  private readonly verified = new Map<string, Record<string, unknown>>()

  /** Verifies a token; a refusal says in words whether it expired or is invalid, with a machine-readable `data.reason`. */
  async verifyAccessToken(
    ...[accessToken, optsOverride, secretOverride]: Parameters<AuthenticationService['verifyAccessToken']>
  ) {
    // (only the app's own options and secret: an override asks for another check; `maxAge` is a check of its own)
    const keep =
      optsOverride === undefined &&
      secretOverride === undefined &&
      this.configuration.jwtOptions?.maxAge === undefined
    if (keep) {
      const payload = this.verified.get(accessToken)
      const now = Math.floor(Date.now() / 1000)
      if (payload && typeof payload.exp === 'number' && now < payload.exp && !(Number(payload.nbf) > now))
        return { ...payload }
    }
    let payload: Record<string, unknown>
    try {
      payload = await super.verifyAccessToken(accessToken, optsOverride, secretOverride ?? this.key())
    } catch (error) {
      throw tokenRefusal(error)
    }
    if (keep) {
      this.verified.delete(accessToken)
      if (this.verified.size >= VERIFIED_TOKENS_KEPT)
        this.verified.delete(this.verified.keys().next().value as string)
      this.verified.set(accessToken, { ...payload })
    }
    return payload
  }
}

// Each Feathers connection object (`socket.feathers`) carries its Socket.IO socket under this key, to disconnect it
// (not enumerable: the connection's properties are copied into each call's params, the socket stays out).
const SOCKET = Symbol('socket')
type SocketCarrier = { [SOCKET]?: Socket }

/** Socket.IO middleware giving each connection its socket. */
export const trackSockets = (io: Server) => {
  io.use((socket: Socket, next) => {
    const connection = (socket as Socket & { feathers?: object }).feathers // set by @feathersjs/socketio's own middleware, untyped
    if (connection) Object.defineProperty(connection, SOCKET, { value: socket, configurable: true })
    next()
  })
}

const SESSIONS_ENDED = 'sessions-ended'
const TOKEN_REVOKED = 'token-revoked'
const SESSION_REVOKED = 'session-revoked'
// A notice's reason, as sent by an instance of this version (anything else: signed out everywhere).
const reasonOf = (value: unknown): SessionEndReason =>
  typeof value === 'string' && Object.hasOwn(sessionEndMessages, value)
    ? (value as SessionEndReason)
    : 'signed-out-everywhere'
/** Signed-out tokens kept per account before signing out everywhere instead (revokeToken). */
export const MAX_REVOKED = 100

// A claim (`jti`, `sid`) of a token a connection signed in with (already verified then; only read here).
const claimOf = (token: unknown, claim: string): string | undefined => {
  if (typeof token !== 'string') return undefined
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'))
    return typeof claims?.[claim] === 'string' ? claims[claim] : undefined
  } catch {
    return undefined
  }
}
const jtiOf = (token: unknown) => claimOf(token, 'jti')

type Login = { account?: { id?: unknown } } | undefined
type ConnectionParams = { connection?: RealTimeConnection } | undefined

/**
 * One app's realtime sessions: which of its connections are signed in as which account (including ones still
 * joining their channels), and cutting them — here, and through a notice on the other instances (REDIS_URL).
 */
export class SessionConnections implements SessionCuts {
  private readonly byAccount = new Map<string, Set<RealTimeConnection>>()

  constructor(
    private readonly app: Application,
    private readonly logger: Logger
  ) {}

  /** Follows logins, logouts and disconnects, and the other instances' notices (once, at start-up). */
  track() {
    const { app, byAccount } = this
    app.on('login', (result: Login, params: ConnectionParams) => {
      const id = result?.account?.id
      const connection = params?.connection
      if (!connection || typeof id !== 'string') return
      let set = byAccount.get(id)
      if (!set) byAccount.set(id, (set = new Set()))
      set.add(connection)
    })
    const forget = (connection: RealTimeConnection) => {
      for (const [id, set] of byAccount) {
        set.delete(connection)
        if (set.size === 0) byAccount.delete(id)
      }
    }
    app.on('logout', (_result: unknown, params: ConnectionParams) => {
      if (params?.connection) forget(params.connection)
    })
    app.on('disconnect', forget)
    // Sessions ended on another instance: cut the account's connections here too.
    onNotice(app, SESSIONS_ENDED, (payload: { account?: unknown; reason?: unknown }) => {
      if (typeof payload?.account === 'string') this.cut(payload.account, reasonOf(payload.reason))
    })
    // One token signed out on another instance: cut its connections here too.
    onNotice(app, TOKEN_REVOKED, (payload: { account?: unknown; jti?: unknown }) => {
      if (typeof payload?.account === 'string' && typeof payload.jti === 'string')
        this.cutTokenHere(payload.account, payload.jti)
    })
    // One session ended on another instance: cut its connections here too.
    onNotice(app, SESSION_REVOKED, (payload: { account?: unknown; session?: unknown; reason?: unknown }) => {
      if (typeof payload?.account === 'string' && typeof payload.session === 'string')
        this.cutSessionHere(payload.account, payload.session, reasonOf(payload.reason))
    })
  }

  /**
   * Cuts the account's open connections in this process (those `which` selects: all by default): no more events
   * (every channel left), no more authenticated calls, then the `session-ended` event with `reason` and the socket
   * disconnected — except `keep` (the caller's own connection), which stays connected but anonymous and learns the
   * outcome from its call's answer.
   */
  cut(
    accountId: string,
    reason: SessionEndReason,
    keep?: unknown,
    which: (connection: RealTimeConnection) => boolean = () => true
  ) {
    const { app, byAccount } = this
    const tracked = byAccount.get(accountId)
    const connections = new Set<RealTimeConnection>([
      ...app.channel(`accounts/${accountId}`).connections,
      ...(tracked ?? [])
    ])
    for (const connection of connections) {
      if (!which(connection)) continue
      tracked?.delete(connection)
      for (const name of app.channels) app.channel(name).leave(connection)
      delete connection.account
      delete connection.channelAccess
      delete connection.authentication
      if (connection === keep) continue
      const socket = (connection as SocketCarrier)[SOCKET]
      // Sent before the disconnect, on the same transport: the client reads why before it sees the cut.
      socket?.emit(SESSION_ENDED_EVENT, endedFor(reason))
      socket?.disconnect(true)
    }
    if (tracked?.size === 0) byAccount.delete(accountId)
  }

  // This process's connections signed in with the token `jti` of the account (but `keep`) are cut.
  private cutTokenHere(accountId: string, jti: string, keep?: unknown) {
    this.cut(
      accountId,
      'signed-out',
      keep,
      (connection) => jtiOf(connection.authentication?.accessToken) === jti
    )
  }

  // This process's connections signed in with a token of the session (but `keep`) are cut.
  private cutSessionHere(accountId: string, sessionId: string, reason: SessionEndReason, keep?: unknown) {
    this.cut(
      accountId,
      reason,
      keep,
      (connection) => claimOf(connection.authentication?.accessToken, SID_CLAIM) === sessionId
    )
  }

  /** Cuts the connections of one session (but `keep`) here and, through a notice, on the other instances. */
  async cutSession(accountId: string, sessionId: string, reason: SessionEndReason, keep?: unknown) {
    this.cutSessionHere(accountId, sessionId, reason, keep)
    await sendNotice(this.app, SESSION_REVOKED, { account: accountId, session: sessionId, reason }).catch(
      (error: Error) => this.logger.error('Session-revoked notice not sent:', error?.message ?? error)
    )
  }

  /** Cuts the account's open connections (but `keep`) here and, through a notice, on the other instances. */
  async cutAccount(accountId: string, reason: SessionEndReason, keep?: unknown) {
    this.cut(accountId, reason, keep)
    await sendNotice(this.app, SESSIONS_ENDED, { account: accountId, reason }).catch((error: Error) =>
      this.logger.error('Sessions-ended notice not sent:', error?.message ?? error)
    )
  }

  /** Cuts the connections signed in with the token `jti` of the account (but `keep`) here and, through a notice, on
   *  the other instances. */
  async cutToken(accountId: string, jti: string, keep?: unknown) {
    this.cutTokenHere(accountId, jti, keep)
    await sendNotice(this.app, TOKEN_REVOKED, { account: accountId, jti }).catch((error: Error) =>
      this.logger.error('Token-revoked notice not sent:', error?.message ?? error)
    )
  }
}

/**
 * Ends every session of an account for `reason`: bumps its session version (so every token issued before is
 * refused from now on) and cuts its open connections everywhere. `change` is written in the same atomic update
 * (e.g. a new password); with `announce` the updated account is announced (`deps.announce`); returns it (hidden
 * fields included).
 */
export const endSessions = async (
  deps: Pick<Deps, 'stores' | 'announce' | 'sessions'>,
  accountId: string,
  reason: SessionEndReason,
  options: { change?: Record<string, unknown>; keep?: unknown; announce?: boolean } = {}
) => {
  const updated = await deps.stores.accounts._patch(accountId, {
    ...(options.change ?? {}),
    $inc: { sessionVersion: 1 }
  })
  // Their refresh tokens die with them.
  await removeAccountSessions(deps, accountId)
  // The change is announced first, so the account's own sockets still get its event before they are cut.
  if (options.announce) await deps.announce('accounts', 'patched', updated)
  await new Promise((resolve) => setImmediate(resolve)) // events published so far are sent before the cut
  await deps.sessions.cutAccount(accountId, reason, options.keep)
  return updated
}

/**
 * Revokes one access token (its `jti`, until `expiresAt` ms): the account's expired entries are dropped, the token's
 * added; the jwt strategy refuses it from the next call on. Other connections signed in with it are cut here and,
 * through a notice, on the other instances.
 */
export const revokeToken = async (
  deps: Pick<Deps, 'stores' | 'announce' | 'sessions' | 'clock'>,
  accountId: string,
  jti: string,
  expiresAt: number,
  keep?: unknown
) => {
  const { accounts } = deps.stores
  // Two atomic updates (concurrent sign-outs lose nothing); the push first, so the list exists for the pull.
  await accounts._patch(accountId, { $push: { revokedTokens: { jti, exp: expiresAt } } })
  const account = await accounts._patch(accountId, {
    $pull: { revokedTokens: { exp: { $lt: deps.clock.now() } } }
  })
  // The list stays short (it is read on every call): past MAX_REVOKED live entries, every session of the account
  // ends instead (which covers the listed tokens too) and the list starts again.
  if (Array.isArray(account.revokedTokens) && account.revokedTokens.length > MAX_REVOKED) {
    await endSessions(deps, accountId, 'signed-out-everywhere', { change: { revokedTokens: [] }, keep })
    return
  }
  await deps.sessions.cutToken(accountId, jti, keep)
}
