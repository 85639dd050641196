// The configuration: one TypeBox schema of every setting, checked when the app is built so that a bad value stops
// start-up with a message naming it. Values come from config/default.json (the only place defaults are written),
// config/<NODE_ENV>.json, the environment variables named in config/custom-environment-variables.json, and the
// few variables below given in seconds. Durations are milliseconds throughout (keys ending in `Ms`).
import fs from 'node:fs'
import path from 'node:path'
import { Type, StringEnum, authenticationSettingsSchema, type Static, type TSchema } from '@feathersjs/typebox'
import { dataValidator, fieldErrors } from './schema/validators'
import { STORE_SYNC_MODES } from './store/sync'
import { StartupError } from './startup-error'

const Ms = () => Type.Number({ minimum: 0 })
const PositiveMs = () => Type.Number({ exclusiveMinimum: 0 })
const Count = (minimum = 0) => Type.Integer({ minimum })
const Page = () => Type.Object({ default: Count(1), max: Count(1) })
const List = () => Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1 })
const Limit = () => Type.Object({ points: Count(1), durationMs: PositiveMs() })
const OAuthProvider = () => Type.Object({ clientId: Type.String(), clientSecret: Type.String(), tokenURL: Type.String(), profileURL: Type.String(), timeoutMs: PositiveMs() })
const Fee = Type.Object({ percent: Type.Number({ minimum: 0, maximum: 100 }), fixed: Type.Number({ minimum: 0 }) })

export const configurationSchema = Type.Object(
  {
    host: Type.String(),
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
    public: Type.String(),
    dataDir: Type.String(),
    /** MONGODB_URL; empty: the embedded engine under dataDir. */
    mongodb: Type.String(),
    /** MONGODB_CONNECT_TIMEOUT_MS: how long start-up (and each later connection attempt) waits for MongoDB. */
    mongodbConnectTimeoutMs: PositiveMs(),
    /** REDIS_URL: the bus shared by several instances (events, rate limits, leases); empty = one process. */
    redis: Type.String(),
    /** REDIS_PREFIX: prefix of every Redis key and channel of this deployment. */
    redisPrefix: Type.String({ minLength: 1 }),
    nedb: Type.Object({ compactionIntervalMs: Ms() }),
    /** Embedded engine: when a write counts as written (src/store/nedb-commit.ts). */
    storeSync: StringEnum(STORE_SYNC_MODES),
    accessCache: Type.Object({ ttlMs: Ms() }),
    bodyLimit: Type.String({ minLength: 1 }),
    paginate: Page(),
    directory: Type.Object({ defaultRadiusKm: Type.Number({ exclusiveMinimum: 0 }), maxRadiusKm: Type.Number({ exclusiveMinimum: 0 }), maxWords: Count(1), paginate: Page() }),
    populate: Type.Object({ maxDepth: Count(0), maxFanOut: Count(1) }),
    admin: Type.Object({ email: Type.String(), password: Type.String(), promoteExisting: Type.Boolean() }),
    medicalRecords: Type.Object({ paginate: Page() }),
    authentication: authenticationSettingsSchema,
    logLevel: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    /** Koa reads X-Forwarded-For only behind a trusted proxy (TRUST_PROXY). */
    trustProxy: Type.Boolean(),
    oauth: Type.Object({ google: OAuthProvider(), facebook: OAuthProvider() }),
    actionCodes: Type.Object({ expiresInMs: PositiveMs(), maxAttempts: Count(1) }),
    passwordPolicy: Type.Object({ minLength: Count(1), maxLength: Count(1), minCharacterClasses: Type.Integer({ minimum: 1, maximum: 4 }) }),
    mfa: Type.Object({ issuer: Type.String({ minLength: 1 }), window: Count(0) }),
    rateLimits: Type.Object({
      failedLoginsPerEmail: Limit(),
      loginsPerIp: Limit(),
      failedActionCodesPerAccount: Limit(),
      actionCodesPerIp: Limit(),
      messagesPerAccount: Limit()
    }),
    messaging: Type.Object({ smtpUrl: Type.String(), mailFrom: Type.String(), smsWebhookUrl: Type.String(), timeoutMs: PositiveMs() }),
    billing: Type.Object({
      currency: Type.String({ pattern: '^[A-Z]{3}$' }),
      moneyDecimals: Type.Integer({ minimum: 0, maximum: 4 }),
      /** The privilege that allows money operations. */
      privilege: Type.String({ minLength: 1 }),
      encounterTypes: List(),
      invoiceTypes: List(),
      subjectTypes: List(),
      itemTypes: List(),
      serviceTypes: List(),
      paymentTypes: List(),
      paymentMethods: List(),
      encounterInvoiceType: Type.String({ minLength: 1 }),
      staleAfterMs: Ms(),
      recoveryIntervalMs: Ms(),
      totalsSweepWindowMs: Ms()
    }),
    inventory: Type.Object({ privilege: Type.String({ minLength: 1 }), staleAfterMs: Ms(), recoveryIntervalMs: Ms() }),
    orders: Type.Object({ requestedForTypes: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, contains: { const: 'patient' } }) }),
    // Webhook delivery (each key is explained in src/jobs/webhook-settings.ts and the README table).
    webhooks: Type.Object({
      allowPrivate: Type.Boolean(),
      retryDelaysMs: Type.Array(Ms()),
      timeoutMs: PositiveMs(),
      deactivateAfterMs: Ms(),
      pollIntervalMs: PositiveMs(),
      concurrency: Count(1),
      concurrencyPerWebhook: Count(1),
      leaseMarginMs: Ms(),
      retentionMs: Ms()
    }),
    /** The audit trail (src/audit/log.ts): recording of calls on or off, retention, and how often the chain's head is anchored. */
    audit: Type.Object({ enabled: Type.Boolean(), retentionDays: Type.Number({ exclusiveMinimum: 0 }), retentionIntervalMs: PositiveMs(), anchorIntervalMs: PositiveMs() }),
    /** Graceful shutdown: the longest a SIGTERM/SIGINT shutdown may take. */
    shutdown: Type.Object({ graceMs: Ms() }),
    /** GET /metrics: the Bearer token scrapes must send (empty: none). */
    metrics: Type.Object({ token: Type.String() }),
    processor: Type.Object({
      kind: StringEnum(['sandbox', 'stripe']),
      timeoutMs: PositiveMs(),
      stripe: Type.Object({
        secretKey: Type.String(),
        host: Type.String(),
        port: Type.String(),
        protocol: StringEnum(['', 'http', 'https']),
        webhookSecret: Type.String()
      })
    }),
    gateways: Type.Object({
      enabled: Type.Array(Type.String({ minLength: 1 })),
      publicURL: Type.String(),
      /** Comma-separated origins a payer may be sent back to. */
      returnOrigins: Type.String(),
      defaultReturnURL: Type.String(),
      defaultCancelURL: Type.String(),
      expireAfterMs: PositiveMs(),
      paypal: Type.Object({ clientId: Type.String(), clientSecret: Type.String(), baseURL: Type.String({ minLength: 1 }), timeoutMs: PositiveMs() }),
      fees: Type.Record(Type.String(), Fee)
    }),
    /** ALLOW_SANDBOX_PAYMENTS: production may start on payments that take no real money (src/providers/payments-mode.ts). */
    allowSandboxPayments: Type.Boolean(),
    subscriptions: Type.Object({
      /** Key of the package whose base values a facility without a live subscription has. */
      defaultPackage: Type.String({ minLength: 1 }),
      /** Trial length when a sign-up asks for a trial of a package that names none. */
      defaultTrialDays: Count(0),
      /** How long a failed first payment stays `incomplete` before it becomes `incomplete_expired`. */
      incompleteWindowMs: Ms(),
      /** Days after a failed renewal at which the charge is tried again; after the last one: `unpaid`. */
      retryDays: Type.Array(Type.Number({ exclusiveMinimum: 0 })),
      /** Lifetime of a checkout session (kept between 31 minutes and 24 hours less a minute). */
      checkoutExpiresAfterMs: PositiveMs(),
      /** How often the time-driven pass runs (0: only at start-up). */
      jobIntervalMs: Ms(),
      /** Where the payer lands after checkout (empty: this server's own pages). */
      successURL: Type.String(),
      cancelURL: Type.String(),
      /** Packages created on first start when no package with their key exists. */
      packages: Type.Array(Type.Record(Type.String(), Type.Unknown()))
    })
  },
  { $id: 'Configuration' }
)

/** Settings that are not read from config/ but passed to createApp by tests and tools. */
export interface TestSettings {
  /** The clock every subscription rule reads (milliseconds since the epoch); tests move it. */
  clock?: { now(): number }
  /** Makes the next N directory rebuilds fail (repair tests). */
  directoryFailRebuilds?: number
}

export type Configuration = Static<typeof configurationSchema> & TestSettings

type DeepPartial<T> = T extends (infer U)[] ? U[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T

/** What createApp takes over config/ (tests, tools): any part of any setting; objects merge key by key. */
export type ConfigurationOverrides = DeepPartial<Configuration>

// Variables given in seconds (as the README documents them), converted here, the one place, to milliseconds.
const secondsVariables: Record<string, string> = {
  WEBHOOK_TIMEOUT: 'webhooks.timeoutMs',
  WEBHOOK_DEACTIVATE_AFTER: 'webhooks.deactivateAfterMs',
  WEBHOOK_POLL_INTERVAL: 'webhooks.pollIntervalMs',
  WEBHOOK_LEASE_MARGIN: 'webhooks.leaseMarginMs',
  WEBHOOK_RETENTION: 'webhooks.retentionMs',
  RATE_LIMIT_FAILED_LOGINS_PER_EMAIL_SECONDS: 'rateLimits.failedLoginsPerEmail.durationMs',
  RATE_LIMIT_LOGINS_PER_IP_SECONDS: 'rateLimits.loginsPerIp.durationMs',
  RATE_LIMIT_FAILED_ACTION_CODES_PER_ACCOUNT_SECONDS: 'rateLimits.failedActionCodesPerAccount.durationMs',
  RATE_LIMIT_ACTION_CODES_PER_IP_SECONDS: 'rateLimits.actionCodesPerIp.durationMs',
  RATE_LIMIT_MESSAGES_PER_ACCOUNT_SECONDS: 'rateLimits.messagesPerAccount.durationMs'
}
const retryDelaysVariable = 'WEBHOOK_RETRY_DELAYS'

/** The variables read here rather than through config/custom-environment-variables.json. */
export const secondsVariableNames = [...Object.keys(secondsVariables), retryDelaysVariable]

/** Seconds (a number, fractions allowed) → milliseconds; anything else is kept so the check names it. */
export const secondsToMs = (value: string): number | string => {
  const seconds = value.trim() === '' ? NaN : Number(value)
  return Number.isFinite(seconds) ? Math.round(seconds * 1000 * 1000) / 1000 : value
}

/** "5,300,1800" (seconds, fractions allowed) → milliseconds; "none" or "" is no retry. */
export const retryDelaysFromSeconds = (value: string): (number | string)[] => {
  if (value.trim().toLowerCase() === 'none') return []
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(secondsToMs)
}

const setPath = (target: Record<string, any>, dotted: string, value: unknown) => {
  const keys = dotted.split('.')
  let node = target
  for (const key of keys.slice(0, -1)) node = node[key] = { ...(node[key] ?? {}) }
  node[keys[keys.length - 1]] = value
}

/** The settings the seconds variables set, in milliseconds (keys are top-level settings, e.g. `webhooks`). */
export const settingsFromSecondsVariables = (env: NodeJS.ProcessEnv = process.env): Record<string, any> => {
  const settings: Record<string, any> = {}
  for (const [name, dotted] of Object.entries(secondsVariables)) {
    const value = env[name]
    if (value !== undefined && value !== '') setPath(settings, dotted, secondsToMs(value))
  }
  const delays = env[retryDelaysVariable]
  if (delays !== undefined) setPath(settings, 'webhooks.retryDelaysMs', retryDelaysFromSeconds(delays))
  return settings
}

const isPlainObject = (value: unknown): value is Record<string, any> => !!value && typeof value === 'object' && !Array.isArray(value)

/** `given` over `base`: settings with fixed keys merge key by key; anything else (lists, maps such as fees) replaces. */
export const mergeSettings = (base: unknown, given: unknown, schema: TSchema = configurationSchema): any => {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties
  if (!properties || !isPlainObject(base) || !isPlainObject(given)) return given === undefined ? base : given
  const merged: Record<string, any> = { ...base }
  for (const [key, value] of Object.entries(given)) merged[key] = properties[key] ? mergeSettings(base[key], value, properties[key]) : value
  return merged
}

// Each setting's environment variable, for messages: "webhooks.timeoutMs (WEBHOOK_TIMEOUT)", and how it is read
// when it is not plain text (`number`, `boolean`, `json`).
const formats = new Map<string, string>()
const variableOf = (() => {
  const names = new Map<string, string>()
  const walk = (node: Record<string, any>, prefix: string) => {
    for (const [key, value] of Object.entries(node)) {
      const dotted = prefix ? `${prefix}.${key}` : key
      if (typeof value === 'string') names.set(dotted, value)
      else if (value && typeof value === 'object' && '__name' in value) {
        names.set(dotted, String(value.__name))
        if (typeof value.__format === 'string') formats.set(String(value.__name), value.__format)
      } else if (value && typeof value === 'object') walk(value, dotted)
    }
  }
  walk(JSON.parse(fs.readFileSync(path.resolve(__dirname, '../config/custom-environment-variables.json'), 'utf8')), '')
  for (const [name, dotted] of Object.entries(secondsVariables)) names.set(dotted, name)
  names.set('webhooks.retryDelaysMs', retryDelaysVariable)
  return (field: string) => names.get(field) ?? names.get(field.replace(/\.\d+$/, ''))
})()

const validate = dataValidator.compile<Configuration>(configurationSchema as TSchema)

const valueAt = (settings: unknown, field: string): unknown =>
  field.split('.').reduce<any>((node, key) => (node && typeof node === 'object' ? node[key] : undefined), settings)

// A number variable that is not one (PORT=abc) reaches the settings as nothing at all: the message then names
// the text given rather than calling the setting missing.
const formatRule: Record<string, string> = { number: 'must be a number', boolean: 'must be true or false', json: 'must be JSON' }

/**
 * Checks the settings against the schema; a bad one throws a StartupError naming each offending setting, its
 * variable and the value given (`env`: the variables the settings were read from).
 */
export const checkConfiguration = (settings: unknown, env: NodeJS.ProcessEnv = process.env): Configuration => {
  if (validate(settings)) return settings
  const problems = fieldErrors(validate.errors).map(({ field, message }) => {
    const variable = variableOf(field)
    const value = valueAt(settings, field)
    const given = variable ? env[variable] : undefined
    if (value === undefined && variable && given !== undefined && given !== '') {
      return `${variable} ${formatRule[formats.get(variable) ?? ''] ?? message} (setting ${field}, got ${JSON.stringify(given)})`
    }
    const got = value === undefined ? 'missing' : `got ${JSON.stringify(value)}`
    return `${variable ?? field} ${message.replace('must be one of: ', 'must be one of ')} (setting ${field}, ${got})`
  })
  throw new StartupError(`Invalid configuration: ${problems.join('; ')}`)
}
