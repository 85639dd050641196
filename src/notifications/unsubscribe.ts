// One-click unsubscribe (RFC 8058): every notification email names a signed link that turns that channel off for
// its account without signing in. The token is `<payload>.<signature>`: the payload (base64url JSON) holds the
// account, the channel and an expiry (`notifications.unsubscribeTtlMs` after the email was sent), and the signature
// is an HMAC-SHA256 of it under a key derived from the app's auth secret (so a token cannot be made or altered
// without the secret, and rotating the secret voids every link). The link is on the public origin.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { BadRequest, Forbidden } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { orNull } from '../billing/store-calls'
import type { Account } from '../services/accounts/accounts.schema'
import { notificationChannels, type NotificationChannel } from './events'
import { appSlot } from '../runtime'

export const UNSUBSCRIBE_PATH = '/notifications/unsubscribe'

interface TokenPayload {
  /** The account. */
  a: string
  /** The channel turned off. */
  c: NotificationChannel
  /** Valid until (ms since the epoch, on the app's clock). */
  e: number
}

type TokenDeps = Pick<Deps, 'settings' | 'clock'>

// The derived key of each app (kept with its settings object, which is the app's own), derived again only when the
// secret changes: every email signs a link, and the derivation is most of what signing one costs.
const keySlot = appSlot<{ secret: string; key: Buffer }>('unsubscribe signing key')

/** The signing key: derived from the auth secret, for this use only. */
const keyOf = (deps: Pick<Deps, 'settings'>) => {
  const secret = deps.settings.get('authentication').secret
  if (typeof secret !== 'string' || !secret) throw new Error('The auth secret is not set')
  const known = keySlot.get(deps.settings)
  if (known?.secret === secret) return known.key
  return keySlot.set(deps.settings, {
    secret,
    key: createHmac('sha256', secret).update('notifications:unsubscribe').digest()
  }).key
}

const sign = (deps: Pick<Deps, 'settings'>, payload: string) =>
  createHmac('sha256', keyOf(deps)).update(payload).digest('base64url')

/** A token turning `channel` off for `account`, valid for `notifications.unsubscribeTtlMs`. */
export const unsubscribeToken = (deps: TokenDeps, account: string, channel: NotificationChannel) => {
  const expires = deps.clock.now() + deps.settings.get('notifications').unsubscribeTtlMs
  const payload = Buffer.from(JSON.stringify({ a: account, c: channel, e: expires })).toString('base64url')
  return `${payload}.${sign(deps, payload)}`
}

/** The one-click link of `account`'s emails, on this server's public origin. */
export const unsubscribeLink = (deps: TokenDeps & Pick<Deps, 'providers'>, account: string) =>
  `${deps.providers.publicOrigin()}${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(unsubscribeToken(deps, account, 'email'))}`

/** The account and channel of a token: 400 when it is malformed or altered, 403 when it expired. */
export const readUnsubscribeToken = (
  deps: TokenDeps,
  token: unknown
): { account: string; channel: NotificationChannel } => {
  const refuse = (message: string) =>
    new BadRequest(message, { errors: [{ field: 'token', message: 'is not a valid unsubscribe token' }] })
  if (typeof token !== 'string' || token.length > 2000) throw refuse('The unsubscribe link is incomplete')
  const [payload, signature, ...rest] = token.split('.')
  if (!payload || !signature || rest.length) throw refuse('The unsubscribe link is incomplete')
  const expected = Buffer.from(sign(deps, payload))
  const given = Buffer.from(signature)
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw refuse('The unsubscribe link is not valid')
  let parsed: Partial<TokenPayload>
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    throw refuse('The unsubscribe link is not valid')
  }
  const { a, c, e } = parsed
  if (
    typeof a !== 'string' ||
    typeof e !== 'number' ||
    !notificationChannels.includes(c as NotificationChannel)
  )
    throw refuse('The unsubscribe link is not valid')
  if (e < deps.clock.now())
    throw new Forbidden('The unsubscribe link has expired: sign in to change your notification settings', {
      errors: [{ field: 'token', message: 'has expired' }]
    })
  return { account: a, channel: c as NotificationChannel }
}

/**
 * Turns `channel` off for `account` (idempotent: an account already opted out stays so, and is not written again).
 * Answers the account as stored, or null when it no longer exists. The change is announced like a service call's.
 */
export const optOut = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'announce'>,
  account: string,
  channel: NotificationChannel
): Promise<Stored<Account> | null> => {
  const current = await orNull(deps.stores.accounts._get(account))
  if (!current) return null
  if (current.notifications?.[channel] === false) return current
  const patched = await orNull(
    deps.stores.accounts._patch(account, { [`notifications.${channel}`]: false, updatedAt: deps.clock.now() })
  )
  if (patched) await deps.announce('accounts', 'patched', patched)
  return patched
}
