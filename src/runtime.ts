// What the app builds at start-up and keeps for its lifetime — the store engine, clients, workers, caches — in one
// typed holder per app, apart from the configuration (src/configuration.ts), which holds only settings.
import type { Application } from './declarations'
import type { Lifecycle } from './ops/lifecycle'
import type { Engine, StoreService } from './store'
import type { RedisState } from './cluster/redis'
import type { NoticeState } from './cluster/notices'
import type { DirectoryState } from './directory/entries'
import type { RepairState } from './directory/repair'
import type { AuthFlows } from './auth/flows'
import type { AuditLog } from './audit/log'
import type { WatchState } from './audit/watchers'
import type { RealtimeAuditState } from './audit/realtime'
import type { AppMetrics } from './ops/metrics'
import type { WebhookWorker } from './jobs/webhook-worker'
import type { CardProcessor } from './providers/processor'
import type { PaymentGateway } from './providers/gateways'
import type { Job } from './ops/jobs'

export interface Runtime {
  lifecycle?: Lifecycle
  /** The jobs started at start-up, in the order they started (src/ops/jobs.ts). */
  jobs: Job[]
  storeEngine?: Engine
  /** Loads of the stores created so far; start-up waits for all of them. */
  storeReady: Promise<void>[]
  storeIndexesBuilt: boolean
  redis?: RedisState
  notices?: NoticeState
  /** This instance's id on the shared event bus (REDIS_URL). */
  instanceId?: string
  directory?: DirectoryState
  directoryRepair?: RepairState
  authFlows?: AuthFlows
  auditLog?: AuditLog
  auditWatch?: WatchState
  realtimeAudit?: RealtimeAuditState
  metrics?: AppMetrics
  webhookWorker?: WebhookWorker
  idempotencyStore?: StoreService
  cardProcessor?: CardProcessor
  paymentGateways: Map<string, PaymentGateway>
  openApiDocument?: { key: string; doc: Record<string, any> }
}

const runtimes = new WeakMap<Application, Runtime>()

/** The app's runtime holder (created empty on first use). */
export const runtimeOf = (app: Application): Runtime => {
  let runtime = runtimes.get(app)
  if (!runtime) {
    runtime = { jobs: [], storeReady: [], storeIndexesBuilt: false, paymentGateways: new Map() }
    runtimes.set(app, runtime)
  }
  return runtime
}
