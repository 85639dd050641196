// Sessions that last a clinic shift: short access tokens and rotating refresh tokens (docs/authentication.md,
// "Sessions and refresh tokens").
// - Every login (password, OAuth, MFA step) starts a session (`sessions` store: account, createdAt, lastUsedAt, ip,
//   userAgent, expiresAt) and answers a refresh token `<sessionId>.<32 random bytes, base64url>` beside the access
//   token. Only its sha256 is stored; the session id inside it only says where to look (a wrong random part is a
//   401 and never ends anything, so knowing a session id gives nothing).
// - Every access token carries its session id (claim `sid`); the jwt strategy refuses it once the session is gone
//   or past its end, on every instance (it reads the store).
// - Refreshing rotates: the presented token must be the current one; the session gets a new one (a conditional
//   update on the old hash, so of two concurrent refreshes exactly one rotates) and a new access token is issued.
//   The rotated hash goes on `retiredHashes`. The new pair is also kept, encrypted under a key derived from the old
//   token (so the store alone cannot read it), for `refreshGraceMs`: within it the old token answers with the same
//   new pair (two tabs refreshing at once both succeed). After it, presenting a retired token is reuse: the whole
//   session ends (every token of it) and the caller records the `refresh-reuse` audit event.
// - A session ends when unused for `idleMs` (expiresAt moves with each refresh) and at `maxMs` after its start
//   whatever happens; its refresh token is refused then (401) and its document removed.
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { NotAuthenticated, NotFound } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import type { Session } from '../services/sessions/sessions.schema'
import type { SessionEndReason } from '../schema/session-ended.shared'

/** The JWT claim holding the session id. */
export const SID_CLAIM = 'sid'
/** Retired refresh token hashes kept per session (reuse of older ones is a plain 401). */
const MAX_RETIRED = 50

export interface SessionSettings {
  accessTokenTtlMs: number
  idleMs: number
  maxMs: number
  refreshGraceMs: number
}

/** A new access token and refresh token. */
export interface TokenPair {
  accessToken: string
  refreshToken: string
}

type SessionDeps = Pick<Deps, 'stores' | 'clock' | 'sessions'>

export const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex')

const sameHash = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))

const newToken = (sessionId: string) => `${sessionId}.${randomBytes(32).toString('base64url')}`

const deadline = (settings: SessionSettings, createdAt: number, now: number) =>
  Math.min(now + settings.idleMs, createdAt + settings.maxMs)

const deadToken = () =>
  new NotAuthenticated(
    'This refresh token is not valid (unknown, already used or signed out); sign in again',
    {
      reason: 'refresh-token-invalid'
    }
  )
const expiredSession = () =>
  new NotAuthenticated('This session has expired; sign in again', { reason: 'session-expired' })

// The grace box: the new pair, AES-256-GCM under sha256 of the token it answers (never stored in clear).
const boxKey = (token: string) => createHash('sha256').update(`grace\0${token}`, 'utf8').digest()
const seal = (token: string, pair: TokenPair) => {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', boxKey(token), iv)
  const body = Buffer.concat([cipher.update(JSON.stringify(pair), 'utf8'), cipher.final()])
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.')
}
const open = (token: string, box: string): TokenPair | undefined => {
  try {
    const [iv, tag, body] = box.split('.').map((part) => Buffer.from(part, 'base64url'))
    const decipher = createDecipheriv('aes-256-gcm', boxKey(token), iv)
    decipher.setAuthTag(tag)
    const pair = JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8'))
    return typeof pair?.accessToken === 'string' && typeof pair?.refreshToken === 'string' ? pair : undefined
  } catch {
    return undefined
  }
}

const loadSession = async (deps: SessionDeps, id: string) =>
  deps.stores.sessions._get(id).catch((error: unknown) => {
    if (error instanceof NotFound) return undefined
    throw error
  })

/**
 * Starts a session of `account` at a login; answers it and its first refresh token.
 * Steps: a random token bound to a new session document holding its hash, the circumstances and the deadline.
 */
export const startSession = async (
  deps: SessionDeps,
  settings: SessionSettings,
  account: string,
  circumstances: { ip?: string; userAgent?: string }
) => {
  const now = deps.clock.now()
  const session = await deps.stores.sessions._create({
    account,
    createdAt: now,
    createdBy: account,
    lastUsedAt: now,
    expiresAt: deadline(settings, now, now),
    ...(circumstances.ip ? { ip: circumstances.ip.slice(0, 100) } : {}),
    ...(circumstances.userAgent ? { userAgent: circumstances.userAgent.slice(0, 500) } : {}),
    refreshHash: 'pending',
    retiredHashes: []
  })
  const refreshToken = newToken(session.id)
  const stored = await deps.stores.sessions._patch(session.id, { refreshHash: hashToken(refreshToken) })
  return { session: stored, refreshToken }
}

/** The live session of an access token's `sid` for `account`, or undefined when it ended or expired. */
export const liveSession = async (deps: SessionDeps, sessionId: string, account: string) => {
  const session = await loadSession(deps, sessionId)
  if (!session || session.account !== account || session.expiresAt <= deps.clock.now()) return undefined
  return session
}

/**
 * Ends one session: its document goes (its refresh token and every access token carrying its id are refused from
 * the next call on, on every instance) and its open sockets are told `reason` and cut, here and elsewhere.
 */
export const endSession = async (
  deps: SessionDeps,
  session: Pick<Stored<Session>, 'id' | 'account'>,
  reason: SessionEndReason,
  keep?: unknown
) => {
  await deps.stores.sessions._remove(session.id).catch((error: unknown) => {
    if (!(error instanceof NotFound)) throw error
  })
  await deps.sessions.cutSession(session.account, session.id, reason, keep)
}

/** Removes every session document of an account (its sockets are cut by the caller, e.g. endSessions). */
export const removeAccountSessions = async (deps: Pick<Deps, 'stores'>, account: string) => {
  await deps.stores.sessions._remove(null, { query: { account } })
}

export type RefreshOutcome =
  | { kind: 'rotated'; session: Stored<Session>; pair: TokenPair }
  | { kind: 'reused'; session: Stored<Session> }

/**
 * Refreshes with `presented` (a refresh token): answers the new pair, or `reused` after ending the session.
 * Steps: find the session by the id in the token (none: 401); past its end: remove it, 401; the current token:
 * rotate it (conditional update on its hash; a lost race is read again as below); the token rotated last, within
 * the grace window: the same new pair; any retired token: end the session (`reused`); anything else: 401.
 * `issue` makes the access token of the session for the account.
 */
export const refreshSession = async (
  deps: SessionDeps,
  settings: SessionSettings,
  presented: string,
  issue: (session: Stored<Session>) => Promise<string>
): Promise<RefreshOutcome> => {
  const dot = presented.indexOf('.')
  const sessionId = dot > 0 ? presented.slice(0, dot) : ''
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(sessionId)) throw deadToken()
  const hash = hashToken(presented)
  for (let attempt = 0; attempt < 2; attempt++) {
    const session = await loadSession(deps, sessionId)
    if (!session) throw deadToken()
    const now = deps.clock.now()
    if (session.expiresAt <= now) {
      await endSession(deps, session, 'expired')
      throw expiredSession()
    }
    if (sameHash(hash, session.refreshHash)) {
      const refreshToken = newToken(session.id)
      const accessToken = await issue(session)
      const pair = { accessToken, refreshToken }
      const rotated = await deps.stores.sessions
        ._patch(
          session.id,
          {
            refreshHash: hashToken(refreshToken),
            retiredHashes: [hash, ...session.retiredHashes].slice(0, MAX_RETIRED),
            rotatedAt: now,
            graceBox: seal(presented, pair),
            lastUsedAt: now,
            expiresAt: deadline(settings, session.createdAt, now)
          },
          { query: { refreshHash: session.refreshHash } }
        )
        .catch((error: unknown) => {
          if (error instanceof NotFound) return undefined // another refresh rotated it first
          throw error
        })
      if (rotated) return { kind: 'rotated', session: rotated, pair }
      continue
    }
    const [latest] = session.retiredHashes
    if (latest && sameHash(hash, latest) && now - (session.rotatedAt ?? 0) <= settings.refreshGraceMs) {
      const pair = session.graceBox ? open(presented, session.graceBox) : undefined
      if (pair) return { kind: 'rotated', session, pair }
    }
    if (session.retiredHashes.some((retired) => sameHash(hash, retired))) {
      await endSession(deps, session, 'refresh-reuse')
      return { kind: 'reused', session }
    }
    throw deadToken()
  }
  throw deadToken()
}
