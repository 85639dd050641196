// accountSchema → Account → accountDataSchema → accountPatchSchema → accountQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, serverFields, QueryNullable } from '../../schema/common'
import { organizationFields } from '../organizations/organizations.schema'
import { signUpSubscriptionSchema } from '../subscriptions/subscriptions.schema'
import { omittingResolver } from '../../schema/resolvers'

const nameFields = {
  firstName: Type.Optional(Text(100)),
  middleName: Type.Optional(Text(100)),
  lastName: Type.Optional(Text(100))
}

/** Which notification channels the account holder accepts (absent: both; action codes are always sent). */
export const notificationPreferences = (options: { minProperties?: number } = {}) =>
  Type.Object(
    { email: Type.Optional(Type.Boolean()), sms: Type.Optional(Type.Boolean()) },
    { additionalProperties: false, ...options }
  )

export const mobileNo = () => Type.String({ pattern: '^\\+?[0-9 ()-]{5,20}$', maxLength: 20 })

export const accountSchema = Type.Object(
  {
    ...serverFields,
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.Optional(Type.String()),
    mobileNo: Type.Optional(mobileNo()),
    ...nameFields,
    admin: Type.Optional(Type.Boolean()),
    mfaEnabled: Type.Optional(Type.Boolean()),
    /** Notification opt-out: `false` turns a channel off (src/notifications). */
    notifications: Type.Optional(notificationPreferences()),
    // Hidden (accountSecrets): the TOTP secret in use, one awaiting confirmation, linked OAuth identities.
    mfaSecret: Type.Optional(Type.String()),
    mfaPending: Type.Optional(Type.String()),
    googleId: Type.Optional(Type.String()),
    facebookId: Type.Optional(Type.String()),
    // Hidden, server-owned: bumped to end every session of the account (src/auth/sessions.ts), and the last
    // TOTP time step used to sign in (a code works once).
    sessionVersion: Type.Optional(Type.Number()),
    mfaLastStep: Type.Optional(Type.Number()),
    // Hidden, server-owned: access tokens signed out one by one (their `jti`, until they expire; src/auth/sessions.ts).
    revokedTokens: Type.Optional(Type.Array(Type.Object({ jti: Type.String(), exp: Type.Number() }))),
    updatedAt: Type.Optional(Type.Number())
  },
  { additionalProperties: false }
)
export type Account = Static<typeof accountSchema>

/** Fields that never leave the server (password hash, MFA secrets, linked OAuth identities, session state). */
export const accountSecrets = [
  'password',
  'mfaSecret',
  'mfaPending',
  'oauth',
  'googleId',
  'facebookId',
  'sessionVersion',
  'accessVersion',
  'mfaLastStep',
  'revokedTokens'
] as const

export const accountDataSchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    // Length and strength are checked by the password policy (src/auth/password.ts), the one source of its messages.
    password: Type.String({
      description: 'Checked by the password policy (PASSWORD_MIN_LENGTH, PASSWORD_MIN_CHARACTER_CLASSES)'
    }),
    mobileNo: Type.Optional(mobileNo()),
    ...nameFields,
    // The organization to create with the account as its superadmin, and optionally its subscription.
    organization: Type.Optional(
      Type.Object(
        { ...organizationFields, subscription: Type.Optional(signUpSubscriptionSchema) },
        { additionalProperties: false }
      )
    )
  },
  { additionalProperties: false }
)
export type AccountData = Static<typeof accountDataSchema>

// Identity (email, mobileNo) and password change only through the authentication actions.
// The account holder's notification preferences: `{ email?: boolean, sms?: boolean }`, the channels given only.
export const accountPatchSchema = Type.Object(
  {
    ...nameFields,
    notifications: Type.Optional(notificationPreferences({ minProperties: 1 }))
  },
  { additionalProperties: false }
)

export const accountQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    email: Type.String(),
    mobileNo: QueryNullable(Type.String()),
    firstName: QueryNullable(Type.String()),
    lastName: QueryNullable(Type.String()),
    createdAt: Type.Number()
  })
)

/** What clients see of an account: never a hash, secret or token (also in events and webhook deliveries). */
export const accountExternalResolver = omittingResolver<Account>(accountSecrets)
