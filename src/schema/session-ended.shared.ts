// What a Socket.IO connection is told when the server cuts it because its session ended (src/auth/sessions.ts):
// first this event, then the disconnect. Shared with the typed client (src/client.ts), which turns it into a
// `logout` event of the client app. Imports nothing, so the client package ships it as it is.

/**
 * The event's name on the wire, as Feathers names service events (`<path> <event>`): every Feathers client over
 * Socket.IO receives it with `client.service('authentication').on('session-ended', (ended) => …)`.
 */
export const SESSION_ENDED_EVENT = 'authentication session-ended'

/** Why a session ended, and what to tell the person whose session it was. */
export const sessionEndMessages = {
  'signed-out': 'This session was signed out from another window or device. Sign in again.',
  'signed-out-everywhere': 'This account was signed out everywhere. Sign in again.',
  'password-changed': 'The password of this account was changed. Sign in again with the new password.',
  'identity-changed': 'The email or mobile number of this account was changed. Sign in again.',
  'mfa-changed': 'Two-factor authentication was turned on or off for this account. Sign in again.',
  'rights-changed': 'The rights of this account changed. Sign in again.',
  'account-removed': 'This account was removed.',
  expired: 'The access token of this connection expired. Refresh it, or sign in again.',
  'session-revoked': 'This session was ended from another window or device. Sign in again.',
  'refresh-reuse':
    'A refresh token of this session was used twice, so the session was ended to protect the account. Sign in again.'
} as const

export type SessionEndReason = keyof typeof sessionEndMessages

/** The event's payload: why the session ended, and a sentence saying so. */
export interface SessionEnded {
  reason: SessionEndReason
  message: string
}

/** The payload for `reason`. */
export const sessionEnded = (reason: SessionEndReason): SessionEnded => ({
  reason,
  message: sessionEndMessages[reason]
})
