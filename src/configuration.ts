// The configuration: one TypeBox schema of every setting, checked when the app is built so that a bad value stops
// start-up with a message naming it. Values come from config/default.json (the only place defaults are written),
// config/<NODE_ENV>.json, the environment variables named in config/custom-environment-variables.json, and the
// few variables below given in seconds. Durations are milliseconds throughout (keys ending in `Ms`).
import fs from 'node:fs'
import path from 'node:path'
import {
  Type,
  StringEnum,
  authenticationSettingsSchema,
  type Static,
  type TSchema
} from '@feathersjs/typebox'
import { dataValidator, fieldErrors } from './schema/validators'
import { StartupError } from './startup-error'

/** The embedded engine's sync modes (STORE_SYNC): when a write counts as written (src/store/nedb-commit.ts says
 *  what each means). Here, in the base layer, so that the settings' schema names them without the engine. */
export type StoreSync = 'always' | 'batch' | 'os'
export const STORE_SYNC_MODES: StoreSync[] = ['always', 'batch', 'os']

const Ms = () => Type.Number({ minimum: 0 })
const PositiveMs = () => Type.Number({ exclusiveMinimum: 0 })
const Count = (minimum = 0) => Type.Integer({ minimum })
const Page = () => Type.Object({ default: Count(1), max: Count(1) })
const List = () => Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1 })
const Limit = () => Type.Object({ points: Count(1), durationMs: PositiveMs() })
const OAuthProvider = () =>
  Type.Object({
    clientId: Type.String(),
    clientSecret: Type.String(),
    tokenURL: Type.String(),
    profileURL: Type.String(),
    timeoutMs: PositiveMs()
  })
const Fee = Type.Object({
  percent: Type.Number({ minimum: 0, maximum: 100 }),
  fixed: Type.Number({ minimum: 0 })
})

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
    nedb: Type.Object({ compactionIntervalMs: Ms(), heapGrowingPercent: Type.Optional(Count()) }),
    /** Embedded engine: when a write counts as written (src/store/nedb-commit.ts). */
    storeSync: StringEnum(STORE_SYNC_MODES),
    accessCache: Type.Object({ ttlMs: Ms() }),
    bodyLimit: Type.String({ minLength: 1 }),
    paginate: Page(),
    directory: Type.Object({
      defaultRadiusKm: Type.Number({ exclusiveMinimum: 0 }),
      maxRadiusKm: Type.Number({ exclusiveMinimum: 0 }),
      maxWords: Count(1),
      paginate: Page()
    }),
    populate: Type.Object({ maxDepth: Count(0), maxFanOut: Count(1) }),
    admin: Type.Object({ email: Type.String(), password: Type.String(), promoteExisting: Type.Boolean() }),
    medicalRecords: Type.Object({ paginate: Page() }),
    authentication: authenticationSettingsSchema,
    sessions: Type.Object({
      accessTokenTtlMs: PositiveMs(),
      idleMs: PositiveMs(),
      maxMs: PositiveMs(),
      refreshGraceMs: Ms()
    }),
    logLevel: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    /** Koa reads X-Forwarded-For only behind a trusted proxy (TRUST_PROXY). */
    trustProxy: Type.Boolean(),
    oauth: Type.Object({ google: OAuthProvider(), facebook: OAuthProvider() }),
    actionCodes: Type.Object({ expiresInMs: PositiveMs(), maxAttempts: Count(1) }),
    /** Organization invitations: how long a mailed code can be applied. */
    invitations: Type.Object({ expiresInMs: PositiveMs() }),
    passwordPolicy: Type.Object({
      minLength: Count(1),
      maxLength: Count(1),
      minCharacterClasses: Type.Integer({ minimum: 1, maximum: 4 })
    }),
    mfa: Type.Object({ issuer: Type.String({ minLength: 1 }), window: Count(0) }),
    rateLimits: Type.Object({
      failedLoginsPerEmail: Limit(),
      loginsPerIp: Limit(),
      failedActionCodesPerAccount: Limit(),
      actionCodesPerIp: Limit(),
      messagesPerAccount: Limit()
    }),
    messaging: Type.Object({
      smtpUrl: Type.String(),
      mailFrom: Type.String(),
      smsWebhookUrl: Type.String(),
      timeoutMs: PositiveMs()
    }),
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
    inventory: Type.Object({
      privilege: Type.String({ minLength: 1 }),
      staleAfterMs: Ms(),
      recoveryIntervalMs: Ms()
    }),
    // Appointments (docs/appointments.md): the no-show pass.
    appointments: Type.Object({
      /** How long after its end a `scheduled` appointment becomes a `no-show`. */
      noShowAfterMs: Ms(),
      /** How often the no-show pass runs (0: only at start-up). */
      jobIntervalMs: Ms()
    }),
    // Notifications (docs/notifications.md): delivery, retries, the per-facility rate, reminders, and the defaults
    // of a facility that set nothing (its settings and its message templates).
    notifications: Type.Object({
      /** Attempts of one message before it is `failed`. */
      maxAttempts: Count(1),
      /** Delay before each retry (the last repeats). */
      retryDelaysMs: Type.Array(Ms(), { minItems: 1 }),
      /** Messages one facility sends per minute at most (the rest wait their turn). */
      ratePerMinute: Count(1),
      /** Time between looks for due messages. */
      pollIntervalMs: PositiveMs(),
      /** How long one instance holds a message it is sending. */
      leaseMs: PositiveMs(),
      /** How often the reminder pass runs. */
      reminderIntervalMs: Ms(),
      /** How long a one-click unsubscribe link stays valid. */
      unsubscribeTtlMs: PositiveMs(),
      defaults: Type.Object({
        channels: Type.Object({ email: Type.Boolean(), sms: Type.Boolean() }),
        reminderOffsetsMinutes: Type.Array(Type.Integer({ minimum: 5, maximum: 20160 }), { maxItems: 5 }),
        queueNextPosition: Type.Integer({ minimum: 1, maximum: 10 }),
        senderName: Type.String({ maxLength: 200 })
      }),
      /** Built-in message templates by `<event>.<channel>` (English): `{ subject (email), body }`. */
      templates: Type.Record(
        Type.String(),
        Type.Object({ subject: Type.Optional(Type.String()), body: Type.String() })
      )
    }),
    orders: Type.Object({
      requestedForTypes: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        contains: { const: 'patient' }
      })
    }),
    // Webhook delivery (each key is explained in src/jobs/webhook-settings.ts and docs/configuration.md).
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
    audit: Type.Object({
      enabled: Type.Boolean(),
      retentionDays: Type.Number({ exclusiveMinimum: 0 }),
      retentionIntervalMs: PositiveMs(),
      anchorIntervalMs: PositiveMs()
    }),
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
      paypal: Type.Object({
        clientId: Type.String(),
        clientSecret: Type.String(),
        baseURL: Type.String({ minLength: 1 }),
        timeoutMs: PositiveMs()
      }),
      fees: Type.Record(Type.String(), Fee)
    }),
    // Attachments (docs/attachments.md): the bytes' limits and links, the allowed types, and where bytes are kept
    // (the embedded store under dataDir, or an S3-compatible bucket when `s3.bucket` is set).
    attachments: Type.Object({
      maxBytes: Count(1),
      uploadTtlMs: PositiveMs(),
      downloadTtlMs: PositiveMs(),
      types: Type.Array(
        Type.String({ pattern: '^[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*$', maxLength: 100 }),
        {
          minItems: 1
        }
      ),
      s3: Type.Object({
        bucket: Type.String({ maxLength: 63 }),
        endpoint: Type.String(),
        region: Type.String({ minLength: 1 }),
        accessKeyId: Type.String(),
        secretAccessKey: Type.String(),
        forcePathStyle: Type.Boolean()
      })
    }),
    /** ALLOW_SANDBOX_PAYMENTS: production may start on payments that take no real money (src/providers/payments-mode.ts). */
    allowSandboxPayments: Type.Boolean(),
    /** SANDBOX_CLOCK: a movable clock at /sandbox/clock for developers and tests (refused in production). */
    sandboxClock: Type.Boolean(),
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
    }),
    /** FHIR R4 under /fhir (src/services/fhir, src/fhir): bulk export jobs and the identifier system. */
    fhir: Type.Object({
      systemBase: Type.String({ minLength: 1 }),
      exportTtlMs: PositiveMs(),
      exportLeaseMs: PositiveMs(),
      exportPageSize: Count(1),
      exportMaxAttempts: Count(1),
      exportPollIntervalMs: PositiveMs(),
      importStaleAfterMs: PositiveMs()
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

type DeepPartial<T> = T extends (infer U)[]
  ? U[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T

/** What createApp takes over config/ (tests, tools): a part of each setting; objects merge key by key. */
export type ConfigurationOverrides = DeepPartial<Configuration>

// Variables given in seconds (as docs/configuration.md documents them), converted here, the one place, to milliseconds.
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

type Tree = Record<string, unknown>

const setPath = (target: Tree, dotted: string, value: unknown) => {
  const keys = dotted.split('.')
  let node = target
  for (const key of keys.slice(0, -1)) {
    const child: Tree = { ...(node[key] as Tree | undefined) }
    node[key] = child
    node = child
  }
  node[keys[keys.length - 1]] = value
}

/** The settings the seconds variables set, in milliseconds (keys are top-level settings, e.g. `webhooks`). */
export const settingsFromSecondsVariables = (env: NodeJS.ProcessEnv = process.env): Tree => {
  const settings: Tree = {}
  for (const [name, dotted] of Object.entries(secondsVariables)) {
    const value = env[name]
    if (value !== undefined && value !== '') setPath(settings, dotted, secondsToMs(value))
  }
  const delays = env[retryDelaysVariable]
  if (delays !== undefined) setPath(settings, 'webhooks.retryDelaysMs', retryDelaysFromSeconds(delays))
  return settings
}

const isPlainObject = (value: unknown): value is Tree =>
  !!value && typeof value === 'object' && !Array.isArray(value)

const mergeTrees = (base: unknown, given: unknown, schema: TSchema): unknown => {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties
  if (!properties || !isPlainObject(base) || !isPlainObject(given)) return given === undefined ? base : given
  const merged: Tree = { ...base }
  for (const [key, value] of Object.entries(given))
    merged[key] = properties[key] ? mergeTrees(base[key], value, properties[key]) : value
  return merged
}

/**
 * `given` over `base`: settings with fixed keys merge key by key; everything else (lists, maps such as fees)
 * replaces. The result has the shape of `base` as far as `given` keeps to the schema: checkConfiguration says so.
 */
export const mergeSettings = <T>(base: T, given: unknown, schema: TSchema = configurationSchema): T =>
  mergeTrees(base, given, schema) as T // (cast: what `given` changed is checked by checkConfiguration)

// Each setting's environment variable, for messages: "webhooks.timeoutMs (WEBHOOK_TIMEOUT)", and how it is read
// when it is not plain text (`number`, `boolean`, `json`). Read once from the file the process ships: the same for
// every app, and never changed after.
const { variableOf, formatOf } = (() => {
  const names = new Map<string, string>()
  const formats = new Map<string, string>()
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(node)) {
      const dotted = prefix ? `${prefix}.${key}` : key
      if (typeof value === 'string') names.set(dotted, value)
      else if (isPlainObject(value) && '__name' in value) {
        names.set(dotted, String(value.__name))
        if (typeof value.__format === 'string') formats.set(String(value.__name), value.__format)
      } else if (isPlainObject(value)) walk(value, dotted)
    }
  }
  walk(
    JSON.parse(
      fs.readFileSync(path.resolve(__dirname, '../config/custom-environment-variables.json'), 'utf8')
    ),
    ''
  )
  for (const [name, dotted] of Object.entries(secondsVariables)) names.set(dotted, name)
  names.set('webhooks.retryDelaysMs', retryDelaysVariable)
  return {
    variableOf: (field: string) => names.get(field) ?? names.get(field.replace(/\.\d+$/, '')),
    formatOf: (variable: string) => formats.get(variable) ?? ''
  }
})()

const validate = dataValidator.compile<Configuration>(configurationSchema as TSchema)

const valueAt = (settings: unknown, field: string): unknown =>
  field
    .split('.')
    .reduce<unknown>(
      (node, key) => (isPlainObject(node) || Array.isArray(node) ? (node as Tree)[key] : undefined),
      settings
    )

// A number variable that is not one (PORT=abc) reaches the settings as nothing at all: the message then names
// the text given rather than calling the setting missing.
const formatRule: Record<string, string> = {
  number: 'must be a number',
  boolean: 'must be true or false',
  json: 'must be JSON'
}

/**
 * Checks the settings against the schema; a bad one throws a StartupError naming each offending setting, its
 * variable and the value given (`env`: the variables the settings were read from).
 */
export const checkConfiguration = (
  settings: unknown,
  env: NodeJS.ProcessEnv = process.env
): Configuration => {
  if (validate(settings)) return settings
  const problems = fieldErrors(validate.errors).map(({ field, message }) => {
    const variable = variableOf(field)
    const value = valueAt(settings, field)
    const given = variable ? env[variable] : undefined
    if (value === undefined && variable && given !== undefined && given !== '') {
      return `${variable} ${formatRule[formatOf(variable)] ?? message} (setting ${field}, got ${JSON.stringify(given)})`
    }
    const got = value === undefined ? 'missing' : `got ${JSON.stringify(value)}`
    return `${variable ?? field} ${message.replace('must be one of: ', 'must be one of ')} (setting ${field}, ${got})`
  })
  throw new StartupError(`Invalid configuration: ${problems.join('; ')}`)
}

// What each setting means, for people: the one source of docs/configuration.md (`npm run docs:config` writes it,
// test/docs/configuration-docs.test.ts fails when it drifts). Kept beside the schema rather than inline so the
// schema above stays readable; each key must be a setting of the schema (checked below, at load), and a setting
// with a description is one row of the table (its parts are not listed separately).
export const settingDescriptions: Record<string, string> = {
  host: 'Interface to listen on (`0.0.0.0` in production)',
  port: 'Port for REST and Socket.IO (`0`: a free port the system picks)',
  public: 'Folder of the static files served at `/` (the console)',
  dataDir: 'Embedded datastore files (one per collection) and, in development, the generated JWT secret',
  mongodb:
    '`mongodb://…/dbname`: use MongoDB instead of the embedded engine; empty: the embedded engine under `dataDir`',
  mongodbConnectTimeoutMs:
    'How long start-up (and each later connection) waits for MongoDB before it gives up with a message naming `MONGODB_URL`',
  redis:
    '`redis://…` (or `rediss://user:pass@…`): the bus shared by several instances — service events, rate-limit counters, leases, notices ([several instances](several-instances.md)). Empty: all of it stays in the process',
  redisPrefix:
    'Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis',
  'nedb.compactionIntervalMs':
    'How often each embedded data file is rewritten compactly (also at shut-down, never at start-up)',
  'nedb.heapGrowingPercent':
    "Embedded engine, once a collection of 200,000 documents or more is loaded: how far (percent) the heap may grow past what the last full garbage collection kept before the next one — less memory for more CPU; `0`: V8's own heuristics ([performance](performance.md#start-up))",
  storeSync:
    "Embedded engine: when a write counts as written — `batch` (fdatasync'ed, shared by concurrent writes), `os` (handed to the OS: survives a process crash, not a power loss) or `always` (fdatasync'ed one write at a time). See [performance](performance.md)",
  'accessCache.ttlMs':
    'Longest reuse of a cached access context (memberships); changes are seen by the next call anyway — this only bounds a process dying mid-change ([performance](performance.md))',
  bodyLimit: 'Largest accepted request body (larger: 413)',
  'paginate.default': 'Page size of a list without `$limit`',
  'paginate.max': 'Largest `$limit` of a list (larger values are capped)',
  'directory.defaultRadiusKm': 'Radius of a directory `location` given without one',
  'directory.maxRadiusKm': 'Largest directory `location` radius (larger: 400)',
  'directory.maxWords': 'Most words in one directory search',
  'directory.paginate.default': 'Directory page size without `$limit`',
  'directory.paginate.max': 'Largest directory `$limit` (larger values are capped)',
  'populate.maxDepth': 'How deep `$populate` follows references',
  'populate.maxFanOut': 'Lookups `$populate` may make per request',
  'admin.email':
    'With `admin.password`: an application admin with these credentials is created at start-up (idempotent). If the email belongs to a non-admin account, the server refuses to start',
  'admin.password': 'The password of that application admin',
  'admin.promoteExisting':
    '`true`: promote an existing non-admin account with `ADMIN_EMAIL` instead (it keeps its password; its sessions end)',
  'medicalRecords.paginate.default': 'Medical records per page without `$limit`',
  'medicalRecords.paginate.max': 'The largest page of medical records',
  'authentication.secret':
    'JWT signing secret (also keys action codes). Empty in development: created once in `DATA_DIR/.auth-secret`. In production the server refuses to start unless it is at least 32 bytes of random-looking text (`openssl rand -base64 48`)',
  'authentication.entity': 'The entity a token authenticates (the account)',
  'authentication.service': 'The service holding that entity',
  'authentication.authStrategies': 'Strategies `POST /authentication` accepts',
  'authentication.jwtOptions':
    'Access token options (header, audience, issuer, algorithm); the lifetime is `sessions.accessTokenTtlMs`, not `expiresIn`',
  'sessions.accessTokenTtlMs':
    'Lifetime of an access token (15 min); clients keep signed in with the refresh token ([authentication](authentication.md#sessions-and-refresh-tokens))',
  'sessions.idleMs':
    'A session whose refresh token is not used for this long ends (12 h): its refresh token is refused',
  'sessions.maxMs': 'A session ends this long after its sign-in, however often it is refreshed (30 days)',
  'sessions.refreshGraceMs':
    'How long a just-rotated refresh token still answers with the same new pair (two tabs refreshing at once) instead of counting as reuse (10 s)',
  'authentication.local': 'Password login: the email and password fields, and the bcrypt cost',
  logLevel: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
  trustProxy:
    '`true` behind a reverse proxy: the client IP (rate limits, audit) is the first `X-Forwarded-For` address',
  'oauth.google.clientId':
    'The Google OAuth client id. Empty: google login answers 501 and is listed as unavailable at start-up',
  'oauth.google.clientSecret': 'The Google OAuth client secret',
  'oauth.google.tokenURL': "Google's token endpoint",
  'oauth.google.profileURL': "Google's profile endpoint",
  'oauth.google.timeoutMs': 'Longest wait for Google per call (then 502)',
  'oauth.facebook.clientId': 'The Facebook OAuth client id. Empty: facebook login answers 501',
  'oauth.facebook.clientSecret': 'The Facebook OAuth client secret',
  'oauth.facebook.tokenURL': "Facebook's token endpoint",
  'oauth.facebook.profileURL': "Facebook's profile endpoint",
  'oauth.facebook.timeoutMs': 'Longest wait for Facebook per call (then 502)',
  'actionCodes.expiresInMs':
    'Lifetime of action codes (identity and password changes, OAuth links, MFA set-up)',
  'actionCodes.maxAttempts': 'Wrong tries before an action code is withdrawn',
  'invitations.expiresInMs':
    'How long an emailed invitation to join an organization can be accepted (7 days)',
  'passwordPolicy.minLength': 'Shortest accepted new password',
  'passwordPolicy.maxLength': 'Longest accepted new password',
  'passwordPolicy.minCharacterClasses':
    'Character classes (lower case, upper case, digits, other) a new password mixes',
  'mfa.issuer': 'Issuer shown by authenticator apps',
  'mfa.window': 'TOTP steps accepted before and after the current one',
  'rateLimits.failedLoginsPerEmail.points':
    'Failed password logins (and wrong current passwords or TOTPs) per email per window',
  'rateLimits.failedLoginsPerEmail.durationMs': 'Its window',
  'rateLimits.loginsPerIp.points': 'Logins and password-confirmed actions per client IP per window',
  'rateLimits.loginsPerIp.durationMs': 'Its window',
  'rateLimits.failedActionCodesPerAccount.points': 'Wrong action codes per account per window',
  'rateLimits.failedActionCodesPerAccount.durationMs': 'Its window',
  'rateLimits.actionCodesPerIp.points':
    '`applyActionCode` and `sendClaimCode` calls per client IP per window',
  'rateLimits.actionCodesPerIp.durationMs': 'Its window',
  'rateLimits.messagesPerAccount.points': 'Confirmation messages per account per window',
  'rateLimits.messagesPerAccount.durationMs': 'Its window',
  'messaging.smtpUrl':
    'SMTP server for confirmation emails (`smtp://user:pass@host:587`); empty: messages are written to the log',
  'messaging.mailFrom': 'Sender of confirmation emails (empty: `no-reply@localhost`)',
  'messaging.smsWebhookUrl':
    'Confirmation SMS are `POST { to, text }` to this URL; empty: written to the log',
  'messaging.timeoutMs': 'Longest wait for SMTP or the SMS URL (then 502)',
  'billing.currency': 'Currency of invoices and services when none is sent',
  'billing.moneyDecimals': 'Decimals allowed in prices and amounts (0–4)',
  'billing.privilege': 'Organization privilege that allows money operations',
  'billing.encounterTypes': 'Allowed encounter `type` values ([billing](billing.md))',
  'billing.invoiceTypes': 'Allowed invoice `type` values ([billing](billing.md))',
  'billing.subjectTypes': 'Allowed invoice subject types ([billing](billing.md))',
  'billing.itemTypes': 'Allowed item `type` values ([billing](billing.md))',
  'billing.serviceTypes': 'Allowed catalogue service `type` values ([billing](billing.md))',
  'billing.paymentTypes': 'Allowed payment `type` values ([billing](billing.md))',
  'billing.paymentMethods': 'Allowed `paymentMethod` values ([billing](billing.md))',
  'billing.encounterInvoiceType': '`type` of the invoice an encounter creates',
  'billing.staleAfterMs':
    'On MongoDB, when an unfinished payment counts as interrupted; also the age for the periodic recovery pass',
  'billing.recoveryIntervalMs': 'Period of the billing recovery pass (`0`: only at start-up)',
  'billing.totalsSweepWindowMs':
    'At start-up, invoices whose items changed this recently get their totals recomputed (`0`: none)',
  'inventory.privilege':
    'Organization privilege that allows managing stockrooms, variants and stocks and moving stock (superadmins always may)',
  'inventory.staleAfterMs':
    'On MongoDB, when an unfinished stock movement or order dispatch counts as interrupted',
  'inventory.recoveryIntervalMs': 'Period of the inventory recovery pass (`0`: only at start-up)',
  'appointments.noShowAfterMs':
    'How long after its end a `scheduled` appointment is marked `no-show` by the no-show pass (30 min)',
  'appointments.jobIntervalMs': 'How often the no-show pass runs (also at start-up; `0`: only at start-up)',
  'notifications.maxAttempts': 'Attempts of one notification before it is `failed` (5)',
  'notifications.retryDelaysMs':
    'Delay before each retry of a notification (JSON list of ms; the last repeats)',
  'notifications.ratePerMinute':
    'Notifications one facility sends per minute at most; the rest wait their turn',
  'notifications.pollIntervalMs': 'Time between looks for due notifications',
  'notifications.leaseMs':
    'How long one instance holds a notification it is sending (a crashed holder frees it after this)',
  'notifications.reminderIntervalMs':
    'How often the appointment reminder pass runs (also at start-up; `0`: only at start-up)',
  'notifications.unsubscribeTtlMs':
    'How long the one-click unsubscribe link of an email stays valid (1 year)',
  'notifications.defaults':
    'What a facility that set nothing gets: channels, reminder offsets (minutes before start), the queue position that says "you are next", the sender name ([notifications](notifications.md))',
  'notifications.templates':
    'Built-in message templates (Mustache) by `<event>.<channel>`, used when a facility has no active template of its own ([notifications](notifications.md))',
  'orders.requestedForTypes': 'The accepted order `requestedForType` values (must include `patient`)',
  'webhooks.allowPrivate':
    '`true`: allow webhook URLs on private, loopback and link-local addresses (development and tests only)',
  'webhooks.retryDelaysMs':
    'Delay before each retry (the variable: seconds, comma-separated, fractions allowed; `none`: no retries)',
  'webhooks.timeoutMs': 'How long one delivery attempt may take',
  'webhooks.deactivateAfterMs': 'Time of failures without a success before a webhook is deactivated (5 days)',
  'webhooks.pollIntervalMs': 'Time between looks for due deliveries',
  'webhooks.concurrency': 'Attempts in flight per process',
  'webhooks.concurrencyPerWebhook': 'Attempts in flight per webhook, across instances (1 keeps strict order)',
  'webhooks.leaseMarginMs': "Time added to the timeout for a claim's lease",
  'webhooks.retentionMs': 'How long delivered and failed deliveries are kept (30 days; `0`: kept)',
  'audit.enabled': '`false` switches the audit trail off (measurements only, never in production)',
  'audit.retentionDays': 'Audit events older than this are removed, oldest first (6 years)',
  'audit.retentionIntervalMs': 'How often the audit retention job runs (also at start-up)',
  'audit.anchorIntervalMs':
    "How often the audit chain's head is anchored (an `anchor` event, and `audit.anchor` webhooks)",
  'shutdown.graceMs':
    'On SIGTERM/SIGINT, time to finish requests and webhook attempts and close the store before exiting',
  'metrics.token':
    'Set: `GET /metrics` needs `Authorization: Bearer <token>` (else 401). Empty: served in development and test, 404 in production',
  'processor.kind':
    'Card processor of billing customers: `sandbox` (in-process, test tokens, cards kept in memory) or `stripe` ([payments](payments.md))',
  'processor.timeoutMs': 'Longest wait for one card processor call (then 502, nothing half-saved)',
  'processor.stripe.secretKey': 'Stripe secret key; required with `PROCESSOR=stripe`; never logged or sent',
  'processor.stripe.host':
    'Point the Stripe SDK at a compatible server (e.g. a local Stripe mock); empty: `api.stripe.com`',
  'processor.stripe.port': 'Its port; empty: `443`',
  'processor.stripe.protocol': 'Its protocol; empty: `https`',
  'processor.stripe.webhookSecret':
    'Signing secret of the Stripe webhook endpoint `POST /processor/events` (checkout outcomes of subscriptions); events whose `Stripe-Signature` does not verify are a 400; never logged or sent',
  'gateways.enabled':
    'The payment gateways offered (`sandbox`, `paypal`); another known gateway in a `gatewayType` is a 400 saying it is not configured',
  'gateways.publicURL':
    "This server's public origin, for the sandbox approval page and the default return/cancel pages (empty: the origin the caller used)",
  'gateways.returnOrigins':
    "Comma-separated origins allowed in `gatewayReturnURL` / `gatewayCancelURL`; empty: this server's origin plus `http://localhost` and `http://127.0.0.1` on every port",
  'gateways.defaultReturnURL':
    'Where the payer lands when an intent names no return URL (empty: `/gateways/return` of this server)',
  'gateways.defaultCancelURL':
    'Where the payer lands when an intent names no cancel URL (empty: `/gateways/cancel` of this server)',
  'gateways.expireAfterMs': 'A payment intent not approved within this time is cancelled (3 h)',
  'gateways.paypal.clientId':
    'PayPal REST app client id; required when `GATEWAYS` includes `paypal`; never logged or sent',
  'gateways.paypal.clientSecret': 'PayPal REST app secret; never logged or sent',
  'gateways.paypal.baseURL':
    "PayPal's API (`https://api-m.paypal.com` for live payments, or a compatible server)",
  'gateways.paypal.timeoutMs': 'Longest wait for one PayPal call (then 502; nothing captured)',
  'gateways.fees':
    '`{ "<gateway>-<method>": { "percent": 2.9, "fixed": 0.3 } }`: the fee schedule behind `receivables.fees` ([payments](payments.md))',
  'attachments.maxBytes':
    'Largest attachment in bytes (25 MiB); a larger declared size or upload is a 413 before any byte is stored',
  'attachments.uploadTtlMs':
    'How long an upload URL stays valid (10 min); a pending attachment is removed after',
  'attachments.downloadTtlMs': 'How long a download URL stays valid (5 min)',
  'attachments.types':
    'The allowed attachment types (JSON list), checked against the type sniffed from the bytes ([attachments](attachments.md))',
  'attachments.s3.bucket':
    'Set: attachment bytes go to this S3-compatible bucket (presigned uploads); empty: the embedded store under `DATA_DIR/attachments/` ([attachments](attachments.md#storage-backends))',
  'attachments.s3.endpoint':
    'The S3 endpoint URL (empty: AWS for `S3_REGION`); e.g. a MinIO or other compatible server',
  'attachments.s3.region': "The bucket's region",
  'attachments.s3.accessKeyId':
    "S3 access key id (empty: the AWS SDK's default credentials chain); never logged",
  'attachments.s3.secretAccessKey': 'S3 secret access key; never logged or sent',
  'attachments.s3.forcePathStyle':
    '`true`: path-style bucket URLs (`<endpoint>/<bucket>/<key>`), which MinIO and most self-hosted servers need',
  sandboxClock:
    '`true`: the sandbox clock — `GET /sandbox/clock` answers the time every time-driven rule reads, and an application admin moves it forward with `PATCH /sandbox/clock { advanceMs }` or `{ now }`, which runs the passes that became due (subscriptions, no-shows, audit retention). For development and tests: refused in production ([appointments](appointments.md#the-sandbox-clock))',
  allowSandboxPayments:
    '`true`: production may start on payments that take no real money (`PROCESSOR=sandbox`, `GATEWAYS` with `sandbox`, a Stripe test key, PayPal\'s sandbox) — for a demonstration; warned at every start, `"payments":"sandbox"` in `/health/ready`. Otherwise production refuses to start on them ([deployment](deployment.md))',
  'subscriptions.defaultPackage':
    'Key of the package whose base values a facility without a live subscription has',
  'subscriptions.defaultTrialDays':
    'Trial length when a sign-up asks for a trial of a package that names none',
  'subscriptions.incompleteWindowMs':
    'How long a subscription whose first payment failed stays `incomplete` before it becomes `incomplete_expired` (23 h)',
  'subscriptions.retryDays':
    'Days after a failed renewal at which the charge is tried again; after the last one the subscription is `unpaid`',
  'subscriptions.checkoutExpiresAfterMs':
    'Lifetime of a checkout session (kept between 31 minutes and 24 hours less a minute)',
  'subscriptions.jobIntervalMs':
    'How often the subscription pass runs (trial ends, renewals, retries, expiry of incomplete subscriptions; also at start-up; `0`: only at start-up)',
  'subscriptions.successURL':
    'Where the payer lands after a subscription checkout is paid (empty: `/processor/checkout/done` of this server)',
  'subscriptions.cancelURL':
    'Where the payer lands after a subscription checkout is not paid (empty: `/processor/checkout/cancel` of this server)',
  'subscriptions.packages':
    'Packages created on first start when no package with their key exists ([subscriptions](subscriptions.md))',
  'fhir.systemBase':
    'Base URL of the identifier systems of FHIR resources (`<base>/accounts`, `<base>/medical-records`…): keep it stable, importers match on it ([FHIR](fhir.md))',
  'fhir.exportTtlMs':
    'How long the files of a completed bulk export stay downloadable (then 404 and deleted)',
  'fhir.exportLeaseMs':
    "Lease of an instance on a running bulk export, renewed while it runs: a crashed instance's export is taken over after it",
  'fhir.exportPageSize': 'Stored documents read per page while a bulk export streams its files',
  'fhir.exportMaxAttempts': 'Runs of one bulk export (a crash interrupts one) before it fails',
  'fhir.exportPollIntervalMs': 'Time between looks for bulk exports to run or expire',
  'fhir.importStaleAfterMs':
    'With MongoDB: an import whose journal was not written for this long was interrupted and is undone (on the embedded engine every unfinished import is undone at start-up)'
}

/** Variables read outside the settings, with what they do (listed in docs/configuration.md too). */
export const environmentOnlyVariables: Record<string, string> = {
  NODE_ENV:
    "`production`: requires `AUTH_SECRET`, hides error details, `HOST` 0.0.0.0, JSON logs, `/metrics` only with `METRICS_TOKEN`. `test`: the test suite's settings. Default `development`",
  LOG_FORMAT:
    '`json`: one JSON object per line; `pretty`: human-readable (pino-pretty). Default `pretty` in development, else `json`',
  FAULT_AFTER_STEP:
    'Tests only (with `NODE_ENV=test`): the process kills itself right after the named billing step'
}

/** The seconds variables and the settings they set (docs/configuration.md lists them with their settings). */
export const secondsVariableSettings: Readonly<Record<string, string>> = {
  ...secondsVariables,
  [retryDelaysVariable]: 'webhooks.retryDelaysMs'
}

// Each description lands on its schema node; one naming no setting stops the load, so none goes stale.
for (const [dotted, description] of Object.entries(settingDescriptions)) {
  let node: TSchema | undefined = configurationSchema
  for (const key of dotted.split('.'))
    node = (node as { properties?: Record<string, TSchema> } | undefined)?.properties?.[key]
  if (!node)
    throw new Error(`settingDescriptions names ${dotted}, which the configuration schema does not have`)
  node.description = description
}
