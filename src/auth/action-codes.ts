// Action codes: random, single-use, bound to one account and one action, expiring, stored hashed, locking
// after a few wrong tries. A code reads `SELECTOR-SECRET`: the selector (8 characters) finds the stored
// record, so wrong tries count against that one code even when it is applied without a Bearer token; the
// secret is only stored as an HMAC (keyed with the server's secret), compared in constant time. Codes handed
// to a client (OAuth linking, MFA set-up) carry 130 random bits; codes typed from a message carry 8 digits,
// which the lock (config `actionCodes.maxAttempts`) keeps out of reach of guessing.
import crypto from 'node:crypto'
import { BadRequest, NotAuthenticated, NotFound } from '@feathersjs/errors'
import type { StoreOptions, StoreService } from '../store'
import type { Clock } from '../clock'
import type { AuthSettings } from './settings'

export type ActionName =
  'connectOAuthAccount' | 'setupMFA' | 'changeIdentity' | 'changePassword' | 'claimAccount'

export interface ActionCodeRecord {
  id: string
  selector: string
  secretHash: string
  account: string
  action: ActionName
  /** One pending code per scope (account + action [+ provider]); a new one supersedes the old. */
  scope: string
  data: Record<string, unknown>
  status: 'pending' | 'claimed' | 'used' | 'superseded'
  attempts: number
  expiresAt: number
  createdAt: number
  usedAt?: number
}

export type CodeKind = 'token' | 'message'

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ' // Crockford base32: no I, L, O, U
const SELECTOR_LENGTH = 8
const TOKEN_SECRET_LENGTH = 26 // 26 × 5 = 130 bits
const MESSAGE_SECRET_DIGITS = 8
const KEEP_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000

const randomString = (length: number, alphabet: string) => {
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[crypto.randomInt(alphabet.length)]
  return out
}

const invalidCode = () =>
  new BadRequest('The action code is not valid', { errors: [{ field: 'code', message: 'is not valid' }] })

/** What applying a code needs from its caller. */
export interface RedeemRequest<T> {
  code: unknown
  /** The account of the Bearer token, if one was sent. */
  accountId?: string
  /** The action the request's payload is meant for (a code of another action is a 400). */
  action: ActionName | ActionName[]
  /** Carries out the action; runs once, with the code claimed so no concurrent call can use it too. */
  apply(record: ActionCodeRecord): Promise<T>
  /** Errors of `apply` that count as a wrong try (e.g. a wrong TOTP); the code stays usable otherwise. */
  isWrongTry?(error: unknown): boolean
  /** Called once for every wrong try that can be tied to an account. */
  onWrongTry?(accountId: string): Promise<void>
  /** Refuses before anything is checked when the account is past its limit of wrong tries. */
  checkAccount?(accountId: string): Promise<void>
}

/** The action codes' own store (internal: no service path), created by the composition root. */
export const actionCodeStoreOptions: StoreOptions = {
  name: 'action-codes',
  indexes: [
    { fields: { selector: 1 }, unique: true },
    { fields: { scope: 1 } },
    { fields: { expiresAt: 1 } }
  ],
  multi: true,
  paginate: false
}

export class ActionCodes {
  constructor(
    readonly store: StoreService<ActionCodeRecord>,
    private readonly key: string,
    private readonly settings: AuthSettings['actionCodes'],
    private readonly clock: Clock
  ) {}

  get expiresInMs() {
    return this.settings.expiresInMs
  }

  private hash(selector: string, secret: string) {
    return crypto.createHmac('sha256', this.key).update(`action-code:${selector}:${secret}`).digest('hex')
  }

  /** Issues a new code for `account` and `action`; earlier pending codes of the same scope stop working. */
  async issue(
    account: string,
    action: ActionName,
    data: Record<string, unknown>,
    kind: CodeKind,
    scopeSuffix = ''
  ): Promise<{ code: string; expiresAt: number; id: string }> {
    const now = this.clock.now()
    const scope = `${account}:${action}${scopeSuffix ? `:${scopeSuffix}` : ''}`
    await this.store._remove(null, { query: { expiresAt: { $lt: now - KEEP_AFTER_EXPIRY_MS } } })
    await this.store._patch(null, { status: 'superseded', data: {} }, { query: { scope, status: 'pending' } })
    for (let tries = 0; ; tries++) {
      const selector = randomString(SELECTOR_LENGTH, ALPHABET)
      const secret =
        kind === 'token'
          ? randomString(TOKEN_SECRET_LENGTH, ALPHABET)
          : randomString(MESSAGE_SECRET_DIGITS, '0123456789')
      const expiresAt = now + this.settings.expiresInMs
      try {
        const record = await this.store._create({
          selector,
          secretHash: this.hash(selector, secret),
          account,
          action,
          scope,
          data,
          status: 'pending',
          attempts: 0,
          expiresAt,
          createdAt: now
        })
        return { code: `${selector}-${secret}`, expiresAt, id: record.id }
      } catch (error) {
        // A selector collision (unique index): draw again.
        if ((error as { code?: unknown })?.code !== 409 || tries >= 3) throw error
      }
    }
  }

  /** Makes a code unusable (e.g. its message could not be sent). */
  async revoke(id: string) {
    await this.store._patch(id, { status: 'superseded', data: {} }).catch(() => undefined)
  }

  private parse(code: unknown): { selector: string; secret: string } | null {
    if (typeof code !== 'string' || code.length > 100) return null
    const match = /^([0-9A-Z]{8})-([0-9A-Z]{8,40})$/.exec(code.trim().toUpperCase())
    return match ? { selector: match[1], secret: match[2] } : null
  }

  // A wrong try: counted against the code (unless its attempt was already claimed) and the account; the try that
  // uses up the last attempt says the code is now locked.
  private async wrongTry<T>(
    record: ActionCodeRecord,
    request: RedeemRequest<T>,
    error: Error,
    alreadyCounted = false
  ): Promise<never> {
    const updated = alreadyCounted
      ? record
      : await this.store._patch(record.id, { $inc: { attempts: 1 } }).catch(() => record)
    await request.onWrongTry?.(record.account)
    if (updated.attempts >= this.settings.maxAttempts) {
      throw new BadRequest(
        `${error.message}; the action code is now locked after ${this.settings.maxAttempts} wrong tries, request a new one`,
        {
          ...((error as { data?: object }).data ?? {}),
          reason: 'code-locked'
        }
      )
    }
    throw error
  }

  /** Checks and claims a code, runs the action, and marks the code used; every refusal is a clear 400. */
  async redeem<T>(request: RedeemRequest<T>): Promise<T> {
    if (request.accountId) await request.checkAccount?.(request.accountId)
    const parsed = this.parse(request.code)
    const [record] = parsed
      ? ((await this.store._find({
          query: { selector: parsed.selector, $limit: 1 },
          paginate: false
        })) as ActionCodeRecord[])
      : []
    if (!parsed || !record) {
      // Nothing to lock; the wrong try counts against the signed-in account (and the caller's IP).
      if (request.accountId) await request.onWrongTry?.(request.accountId)
      throw invalidCode()
    }
    await request.checkAccount?.(record.account)

    const locked = () =>
      new BadRequest(
        `The action code is locked after ${this.settings.maxAttempts} wrong tries; request a new one`,
        { reason: 'code-locked' }
      )
    if (record.attempts >= this.settings.maxAttempts) throw locked()
    // Every try first claims one of the code's attempts with a conditional update, and only a try that got one
    // compares the secret: however many tries run at once, the secret is compared at most maxAttempts times
    // while the code is locked. The right secret gives its attempt back.
    let claimed: ActionCodeRecord
    try {
      claimed = await this.store._patch(
        record.id,
        { $inc: { attempts: 1 } },
        { query: { attempts: { $lt: this.settings.maxAttempts } } }
      )
    } catch (error) {
      if (error instanceof NotFound) throw locked()
      throw error
    }
    const expected = Buffer.from(record.secretHash, 'hex')
    const given = Buffer.from(this.hash(parsed.selector, parsed.secret), 'hex')
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given))
      return this.wrongTry(claimed, request, invalidCode(), true)
    await this.store._patch(record.id, { $inc: { attempts: -1 } })

    if (record.status === 'used' || record.status === 'claimed')
      throw new BadRequest('The action code has already been used', { reason: 'code-used' })
    if (record.status === 'superseded')
      throw new BadRequest('The action code was replaced by a newer one or withdrawn; use the latest code', {
        reason: 'code-superseded'
      })
    if (record.expiresAt <= this.clock.now())
      throw new BadRequest('The action code has expired; request a new one', { reason: 'code-expired' })
    if (request.accountId && request.accountId !== record.account) {
      return this.wrongTry(
        record,
        request,
        new BadRequest('The action code belongs to another account than the one signed in', {
          reason: 'code-wrong-account'
        })
      )
    }
    const allowed = Array.isArray(request.action) ? request.action : [request.action]
    if (!allowed.includes(record.action)) {
      throw new BadRequest(`The action code is for '${record.action}', not for '${allowed.join("' or '")}'`, {
        reason: 'code-wrong-action',
        action: record.action
      })
    }
    if ((record.action === 'connectOAuthAccount' || record.action === 'setupMFA') && !request.accountId) {
      throw new NotAuthenticated(`A '${record.action}' code is applied with the Bearer token of its account`)
    }

    // Claim it atomically: of two concurrent calls only one gets past this point.
    try {
      await this.store._patch(
        record.id,
        { status: 'claimed' },
        { query: { status: 'pending', attempts: { $lt: this.settings.maxAttempts } } }
      )
    } catch (error) {
      if (error instanceof NotFound)
        throw new BadRequest('The action code has already been used', { reason: 'code-used' })
      throw error
    }
    try {
      const result = await request.apply(record)
      // The record stays (so a reuse is told apart from a wrong code) without what the action carried.
      await this.store._patch(record.id, { status: 'used', usedAt: this.clock.now(), data: {} })
      return result
    } catch (error) {
      await this.store._patch(record.id, { status: 'pending' }).catch(() => undefined)
      if (request.isWrongTry?.(error)) return this.wrongTry(record, request, error as Error)
      throw error
    }
  }
}
