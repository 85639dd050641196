// subscriptionSchema → Subscription → subscriptionDataSchema → subscriptionPatchSchema → subscriptionQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'

export const SUBSCRIPTION_STATUSES = [
  'pending',
  'trialing',
  'active',
  'incomplete',
  'incomplete_expired',
  'canceled',
  'past_due',
  'unpaid',
  'paused'
] as const
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number]
/** Statuses a subscription never leaves; a facility whose subscription is final may create a new one. */
export const FINAL_STATUSES: SubscriptionStatus[] = ['canceled', 'incomplete_expired']

const Status = () => Type.Union(SUBSCRIPTION_STATUSES.map((status) => Type.Literal(status)))
const Nullable = <T extends ReturnType<typeof Type.Number>>(schema: T) => Type.Union([schema, Type.Null()])

export const checkoutSessionSchema = Type.Object(
  { id: Type.String(), url: Type.String({ description: 'Where the payer pays' }), expiresAt: Timestamp() },
  { additionalProperties: false }
)

const FeatureValue = () =>
  Type.Union([Type.Boolean(), Type.Number()], {
    description:
      "A feature's (or limit's) current value, one top-level field per product key of the package, e.g. lis: true"
  })

export const subscriptionSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString({ description: 'The organization (facility) id' }),
    package: IdString({ description: 'The subscription package id' }),
    status: Status(),
    price: Type.Number({ description: "The package's price per interval, in the smallest currency unit" }),
    currency: Type.String(),
    interval: Type.String(),
    trialEndsAt: Type.Optional(Nullable(Timestamp())),
    currentPeriodStart: Type.Optional(Nullable(Timestamp())),
    currentPeriodEnd: Type.Optional(Nullable(Timestamp())),
    checkoutSession: Type.Union([checkoutSessionSchema, Type.Null()], {
      description: 'The checkout to follow to pay what is pending (null: nothing to pay)'
    }),
    updatesPending: Type.Record(Type.String(), Type.Union([Type.String(), Type.Boolean(), Type.Number()]), {
      description: 'Changes waiting for the checkout: package and/or feature toggles'
    }),
    statusHistory: Type.Array(
      Type.Object(
        {
          status: Status(),
          at: Timestamp(),
          by: Type.Union([Type.String(), Type.Null()]),
          reason: Type.Optional(Type.String())
        },
        { additionalProperties: false }
      )
    ),
    prorations: Type.Optional(
      Type.Array(
        Type.Object(
          {
            from: Type.String(),
            to: Type.String(),
            amount: Type.Number(),
            currency: Type.String(),
            at: Timestamp()
          },
          { additionalProperties: false }
        ),
        {
          description:
            'Package changes within a paid period: the difference for the rest of the period, settled with the next renewal'
        }
      )
    ),
    retry: Type.Optional(
      Type.Union([
        Type.Object({ attempt: Type.Integer(), nextAt: Timestamp(), since: Timestamp() }),
        Type.Null()
      ])
    ),
    incompleteAt: Type.Optional(Nullable(Timestamp())),
    canceledAt: Type.Optional(Timestamp()),
    canceledBy: Type.Optional(Type.String()),
    cancelReason: Type.Optional(Type.String()),
    updatedAt: Timestamp()
  },
  { additionalProperties: FeatureValue() }
)
export type Subscription = Static<typeof subscriptionSchema> & Record<string, unknown>

/** What a sign-up (POST /accounts with organization) may ask for. */
export const signUpSubscriptionSchema = Type.Object(
  {
    package: IdString({ description: 'A subscription package id (GET /subscription/packages)' }),
    trial: Type.Optional(
      Type.Boolean({
        description: "Start with a trial (the package's trial days, or the configured default)"
      })
    )
  },
  { additionalProperties: false }
)

export const subscriptionDataSchema = Type.Object(
  {
    facility: IdString({ description: 'An organization you are a superadmin of' }),
    package: IdString(),
    trial: Type.Optional(Type.Boolean())
  },
  { additionalProperties: false }
)

export const packageChangeSchema = Type.Object(
  { package: IdString() },
  { additionalProperties: false, title: 'change the package' }
)
export const statusChangeSchema = Type.Object(
  {
    status: Status(),
    reason: Type.Optional(Text(1000))
  },
  {
    additionalProperties: false,
    title: 'change the status (a superadmin: canceled only; others: application admins)'
  }
)
export const toggleSchema = Type.Record(
  Type.String({ pattern: '^[a-z][A-Za-z0-9]{0,39}$' }),
  Type.Boolean(),
  {
    title: 'toggle features',
    description: 'Feature keys the package lets a subscriber toggle, e.g. { "lis": true }'
  }
)

/** One kind of change per PATCH: a package, a status (with a reason), or feature toggles (checked by the domain). */
export const subscriptionPatchSchema = Type.Object(
  {
    package: Type.Optional(IdString()),
    status: Type.Optional(Status()),
    reason: Type.Optional(Text(1000))
  },
  { additionalProperties: Type.Boolean() }
)

export const subscriptionQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    package: IdString(),
    status: Type.String(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

// The live key and the open checkout's amount are bookkeeping, which never leave the server.
export const subscriptionInternals = ['liveKey', 'checkout'] as const

/** What clients see of a subscription. */
export const subscriptionExternalResolver = omittingResolver<Subscription>(subscriptionInternals)
