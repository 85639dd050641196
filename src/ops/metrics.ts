// Prometheus metrics (prom-client) at GET /metrics: REST requests and Socket.IO calls by service, method and
// status; webhook deliveries by outcome and the pending queue depth; store operation latency; and the process
// metrics of prom-client (event-loop lag, memory, CPU, handles). Each app has its own registry (tests run many
// apps in one process); the process metrics are one registry shared by all.
// Access: with METRICS_TOKEN set, `Authorization: Bearer <token>` is required (401 otherwise); without it the
// endpoint is served in development and test, and is a 404 in production.
import { timingSafeEqual } from 'node:crypto'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { NotAuthenticated, NotFound } from '@feathersjs/errors'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application } from '../declarations'
import { depsSlot, type Meters } from '../deps'
import { appSlot } from '../runtime'
import { storeTimerSlot } from '../store'

// The process's own metrics (event-loop lag, memory, CPU, handles) describe the process, whatever app runs in it:
// collected once per process (collecting them twice would register the same metrics twice) and served by each app.
let processRegistry: Registry | undefined
const processMetrics = () => {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry })
  }
  return processRegistry
}

const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const storeBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

export class AppMetrics implements Meters {
  readonly registry = new Registry()
  readonly requests = new Counter({
    name: 'clinic_requests_total',
    help: 'REST requests and Socket.IO calls, by transport, service path, method and status code',
    labelNames: ['transport', 'service', 'method', 'status'],
    registers: [this.registry]
  })
  readonly requestDuration = new Histogram({
    name: 'clinic_request_duration_seconds',
    help: 'Duration of REST requests and Socket.IO calls, by transport, service path, method and status code',
    labelNames: ['transport', 'service', 'method', 'status'],
    buckets: durationBuckets,
    registers: [this.registry]
  })
  readonly webhookDeliveries = new Counter({
    name: 'clinic_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed, lease-lost)',
    labelNames: ['outcome'],
    registers: [this.registry]
  })
  readonly storeDuration = new Histogram({
    name: 'clinic_store_operation_duration_seconds',
    help: 'Store (NeDB or MongoDB adapter) operation latency by collection and operation',
    labelNames: ['collection', 'operation'],
    buckets: storeBuckets,
    registers: [this.registry]
  })

  constructor(queueDepth: () => Promise<number>) {
    new Gauge({
      name: 'clinic_webhook_queue_depth',
      help: 'Webhook deliveries pending (waiting for an attempt or a retry)',
      registers: [this.registry],
      async collect() {
        this.set(await queueDepth().catch(() => 0))
      }
    })
  }

  /** Records one request or call. */
  observe(transport: 'rest' | 'socketio', service: string, method: string, status: number, seconds: number) {
    const labels = { transport, service, method, status: String(status) }
    this.requests.inc(labels)
    this.requestDuration.observe(labels, seconds)
  }

  /** Records one webhook delivery attempt. */
  webhookDelivery(outcome: 'delivered' | 'retry' | 'failed' | 'lease-lost') {
    this.webhookDeliveries.inc({ outcome })
  }

  async text() {
    return `${await processMetrics().metrics()}\n${await this.registry.metrics()}`
  }
}

const metricsSlot = appSlot<AppMetrics>('metrics')

export const metricsOf = (app: Application): AppMetrics | undefined => metricsSlot.get(app)

/** Creates the app's metrics (and returns them); the queue depth counts pending deliveries in the
 *  `webhook-events` store. */
export const metrics = (app: Application): AppMetrics => {
  const queueDepth = async () => {
    // (read when scraped: the stores are filled in after the metrics are created)
    const page = await depsSlot.require(app).stores.deliveries._find({
      query: { status: 'pending', $limit: 0 },
      paginate: { default: 1, max: 1 }
    })
    return page.total as number
  }
  const appMetrics = metricsSlot.set(app, new AppMetrics(queueDepth))
  storeTimerSlot.set(
    app,
    (collection) => (operation) => appMetrics.storeDuration.startTimer({ collection, operation })
  )
  return appMetrics
}

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** GET /metrics (Koa middleware). */
export const metricsEndpoint =
  (app: Application) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    if (ctx.path !== '/metrics' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next()
    const token = app.get('metrics').token
    if (token) {
      const header = ctx.get('authorization')
      const given = /^Bearer\s+(.+)$/i.exec(header)?.[1] ?? ''
      if (!sameToken(given, token)) {
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"')
        throw new NotAuthenticated('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>')
      }
    } else if (process.env.NODE_ENV === 'production') {
      throw new NotFound(`Path ${ctx.path} not found`)
    }
    const registry = metricsOf(app)
    ctx.set('Content-Type', registry?.registry.contentType ?? 'text/plain; version=0.0.4; charset=utf-8')
    ctx.body = registry ? await registry.text() : ''
  }
