// What the domain receives: the composition root (`createApp`) builds one `Deps` per app and hands it to each
// service class and each domain function that needs it — typed stores, the event bus, the clock, the settings and
// the logger — so nothing below the root looks a collaborator up on `app` by a path string. `Stores` holds each
// service's own typed store (its internal `_` methods: no hooks, no events), filled in as the services register.
import type { Configuration } from './configuration'
import { appSlot } from './runtime'
import type { Logger } from './logger'
import type { Clock, OffsetClock } from './clock'
import type { EventBus, EventMap } from './events'
import type { StoreService, Stored } from './store'
import type { Providers } from './providers/registry'
import type { Account } from './services/accounts/accounts.schema'
import type { Organization } from './services/organizations/organizations.schema'
import type { Member } from './services/organization-members/organization-members.schema'
import type { Invitation } from './services/organization-invitations/organization-invitations.schema'
import type { MedicalRecord } from './services/medical-records/medical-records.schema'
import type { Encounter } from './services/medical-encounters/medical-encounters.schema'
import type { Service } from './services/services/services.schema'
import type { Invoice } from './services/billing-invoices/billing-invoices.schema'
import type { Item } from './services/billing-items/billing-items.schema'
import type { Payment } from './services/billing-payments/billing-payments.schema'
import type { Customer } from './services/billing-customers/billing-customers.schema'
import type { Intent } from './services/billing-payment-intents/billing-payment-intents.schema'
import type { Variant } from './services/inventory-variants/inventory-variants.schema'
import type { Stockroom } from './services/inventory-stockrooms/inventory-stockrooms.schema'
import type { Stock } from './services/inventory-stocks/inventory-stocks.schema'
import type { StockMovement } from './services/inventory-stock-movements/inventory-stock-movements.schema'
import type { Order } from './services/request-orders/request-orders.schema'
import type { Schedule } from './services/schedules/schedules.schema'
import type { Appointment } from './services/appointments/appointments.schema'
import type { Queue } from './services/queues/queues.schema'
import type { QueueItem } from './services/queue-items/queue-items.schema'
import type { Package } from './services/subscription-packages/subscription-packages.schema'
import type { Subscription } from './services/subscriptions/subscriptions.schema'
import type { Webhook } from './services/webhooks/webhooks.schema'
import type { StoredDelivery } from './services/webhook-events/webhook-events.schema'
import type { Notification } from './services/notifications/notifications.schema'
import type { NotificationSettingsDoc } from './services/notification-settings/notification-settings.schema'
import type { NotificationTemplate } from './services/notification-templates/notification-templates.schema'
import type { Session } from './services/sessions/sessions.schema'
import type { AuditEventDoc } from './services/audit-events/audit-events.schema'
import type { IdempotencyKeyRecord } from './schema/billing'
import type { AccessLoader } from './access/context'
import type { SessionEndReason } from './schema/session-ended.shared'
import type { Locks } from './cluster/locks'
import type { Attachment } from './services/attachments/attachments.schema'
import type { Patient } from './services/patients/patients.schema'

/** A service's store as the domain writes through it: documents of type `T` plus the server's bookkeeping. */
export type Store<T> = StoreService<Stored<T>>

/** Every service's store, by the name the domain uses. */
export interface Stores {
  accounts: Store<Account>
  /** Sign-in sessions (src/auth/refresh.ts). */
  sessions: Store<Session>
  organizations: Store<Organization>
  members: Store<Member>
  /** Invitations to join an organization by email (src/services/organization-invitations). */
  invitations: Store<Invitation>
  records: Store<MedicalRecord>
  encounters: Store<Encounter>
  services: Store<Service>
  invoices: Store<Invoice>
  items: Store<Item>
  payments: Store<Payment>
  customers: Store<Customer>
  intents: Store<Intent>
  variants: Store<Variant>
  stockrooms: Store<Stockroom>
  stocks: Store<Stock>
  movements: Store<StockMovement>
  orders: Store<Order>
  schedules: Store<Schedule>
  appointments: Store<Appointment>
  /** Waiting-room queues and their items (src/queues). */
  queues: Store<Queue>
  queueItems: Store<QueueItem>
  packages: Store<Package>
  subscriptions: Store<Subscription>
  webhooks: Store<Webhook>
  deliveries: Store<StoredDelivery>
  auditEvents: Store<AuditEventDoc>
  /** The notifications log and outbox (src/notifications/). */
  notifications: Store<Notification>
  /** A facility's notification settings and message templates (src/notifications/settings.ts, templates.ts). */
  notificationSettings: Store<NotificationSettingsDoc>
  notificationTemplates: Store<NotificationTemplate>
  /** Idempotency-Key records of the money-moving services (src/billing/idempotency.ts). */
  idempotencyKeys: Store<IdempotencyKeyRecord>
  /** Files on medical records and encounters: their metadata (the bytes are in the storage, src/attachments). */
  attachments: Store<Attachment>
  /** A facility's patients: links of facilities and accounts, with the search keys (src/patients/links.ts). */
  patients: Store<Patient>
}

/** The settings as the app holds them now (read at the time of use: tests may change one on a running app). */
export interface Settings {
  get<K extends keyof Configuration>(key: K): Configuration[K]
}

/** Announces documents of `path` changed outside a service method call (cascades, totals, jobs), exactly as a
 *  service call would: the realtime event to the connections that may read them and `record.changed`. */
export type Announce = (
  path: string,
  event: 'created' | 'patched' | 'removed',
  docs: unknown
) => Promise<void>

/** The realtime side of ending sessions (src/auth/sessions.ts): cuts an account's open connections, all of them
 *  or those signed in with one token or one session (but `keep`, the caller's own), here and on the other instances. */
export interface SessionCuts {
  cutAccount(accountId: string, reason: SessionEndReason, keep?: unknown): Promise<void>
  cutToken(accountId: string, jti: string, keep?: unknown): Promise<void>
  /** Cuts the connections signed in with a token of the session `sessionId` (but `keep`), telling them `reason`. */
  cutSession(accountId: string, sessionId: string, reason: SessionEndReason, keep?: unknown): Promise<void>
}

/** Calls and requests in flight, which graceful shutdown waits for, and its deadline (src/ops/lifecycle.ts keeps
 *  them; declared here so that the hooks and jobs that count their work need nothing from ops/). */
export interface InFlight {
  /** A call or request started (paired with end()). */
  begin(): void
  end(): void
  /** Milliseconds left until the shutdown deadline; Infinity before shutdown starts. */
  remaining(): number
}

/** What the app counts for /metrics (src/ops/metrics.ts serves it), as the code doing the work records it. */
export interface Meters {
  /** One REST request or Socket.IO call: its service path, method, status code and duration. */
  observe(
    transport: 'rest' | 'socketio',
    service: string,
    method: string,
    status: number,
    seconds: number
  ): void
  /** One webhook delivery attempt, by outcome. */
  webhookDelivery(outcome: 'delivered' | 'retry' | 'failed' | 'lease-lost'): void
}

/** One time-driven pass (subscriptions, no-shows, retention...): runs what is due on the clock, answers how many
 *  things it changed. */
export interface TimeDrivenPass {
  job: string
  run(): Promise<number>
}

/** The app's time-driven passes, registered by their jobs; the sandbox clock runs them all after moving time. */
export interface TimeDrivenPasses {
  register(pass: TimeDrivenPass): void
  runAll(): Promise<{ job: string; changed: number; error?: string }[]>
}

/** Bytes written to a staging place (the embedded store's temp folder), hashed and measured on the way, not yet
 *  kept: `commit` keeps them under `key`, `discard` drops them. */
export interface StagedBlob {
  /** The key `commit` stores the bytes under (embedded: the content hash, shared by equal uploads). */
  readonly key: string
  readonly size: number
  /** SHA-256 of the bytes, lowercase hex. */
  readonly sha256: string
  /** The first bytes (up to 4100), for sniffing the type. */
  readonly head: Buffer
  /** Every byte is UTF-8 text without NULs (plain text and CSV have no magic number). */
  readonly text: boolean
  commit(): Promise<void>
  discard(): Promise<void>
}

/** A stored object's bytes, all or one range (`start`..`end` inclusive). */
export interface BlobRead {
  stream: NodeJS.ReadableStream
  /** The whole object's size. */
  size: number
}

/** Where attachment bytes are kept (src/attachments/blobs/): the embedded store under DATA_DIR/attachments/ or an
 *  S3-compatible bucket, chosen at start-up. */
export interface Blobs {
  readonly kind: 'embedded' | 's3'
  /** Streams `source` to the staging place while hashing it; more than `maxBytes` rejects with a 413 (nothing
   *  left behind). `key`: the final key on S3 (each attachment its own object); the embedded store ignores it. */
  stage(source: NodeJS.ReadableStream, options: { maxBytes: number; key: string }): Promise<StagedBlob>
  /** The bytes of `key` (404 when absent); `range` inclusive. */
  read(key: string, range?: { start: number; end: number }): Promise<BlobRead>
  /** The size of `key`, or null when there is no such object. */
  size(key: string): Promise<number | null>
  /** Removes `key` (no error when absent). */
  remove(key: string): Promise<void>
  /** S3 only: a presigned PUT of `key` for `size` bytes of `contentType`, valid for `expiresInMs`. */
  presignPut?(
    key: string,
    options: { contentType: string; size: number; expiresInMs: number }
  ): Promise<string>
  /** S3 only: copies `from` to `to` inside the bucket. */
  copy?(from: string, to: string): Promise<void>
  /** Removes staging leftovers of a crashed process (temp files); at start-up. */
  sweep(): Promise<number>
  /** Every kept key (never a staging one), for the start-up sweep of bytes no file references any more. */
  keys(): AsyncIterable<string>
  close(): Promise<void>
}

export interface Deps {
  readonly settings: Settings
  readonly logger: Logger
  /** The one clock every time-driven rule reads. */
  readonly clock: Clock
  /** With SANDBOX_CLOCK=true: the clock itself, which /sandbox/clock moves forward; otherwise null. */
  readonly sandboxClock: OffsetClock | null
  /** The time-driven passes (src/ops/jobs.ts registers them). */
  readonly passes: TimeDrivenPasses
  readonly events: EventBus<EventMap>
  readonly announce: Announce
  readonly inFlight: InFlight
  readonly meters: Meters
  /** Filled in by the services as they register (before the first call is served). */
  readonly stores: Stores
  /** The card processor and payment gateways, built on first use. */
  readonly providers: Providers
  /** The callers' access contexts, with the app's cache of memberships (src/access/context.ts). */
  readonly access: AccessLoader
  /** Cuts the connections of sessions that ended (src/auth/sessions.ts). */
  readonly sessions: SessionCuts
  /** Named locks held here and, with REDIS_URL, across instances (src/cluster/locks.ts): check-then-write steps
   *  no single store operation decides, e.g. a provider's free time checked then booked. */
  readonly locks: Locks
  /** Where attachment bytes are kept (src/attachments/blobs/). */
  readonly blobs: Blobs
}

/**
 * The app's dependencies, for the composition layer (service registration, hooks built from a context): code below
 * it receives them as an argument instead.
 */
export const depsSlot = appSlot<Deps>('dependencies')
