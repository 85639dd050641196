// The application: Koa REST and Socket.IO on one port, the store, authentication, services and channels.
import { feathers } from '@feathersjs/feathers'
import configuration from '@feathersjs/configuration'
import { koa, rest, bodyParser, cors, parseAuthentication } from '@feathersjs/koa'
import socketio from '@feathersjs/socketio'
import type { Application, Configuration, HookContext, NextFunction } from './declarations'
import {
  checkConfiguration,
  mergeSettings,
  settingsFromSecondsVariables,
  type ConfigurationOverrides
} from './configuration'
import { logger } from './logger'
import { errorHandler, guardRouteLookup, requireJson, securityHeaders, staticFiles } from './http'
import { store, storeReady, closeStore } from './store'
import { authentication } from './authentication'
import { services, storesOf } from './services'
import { depsSlot, type Deps, type Stores } from './deps'
import { EventBus, type EventMap } from './events'
import { OffsetClock, systemClock } from './clock'
import { StartupError } from './startup-error'
import { createTimeDrivenPasses } from './jobs/time-driven'
import { createAnnouncer } from './services/announce'
import { channels } from './channels'
import { ensureAdmin } from './admin'
import { logError } from './hooks/log-error'
import { rejectUnsafeKeys } from './hooks/reject-unsafe-keys'
import { requireScalarId } from './hooks/require-scalar-id'
import { answerUnknownMethods, sendEventsEncodedOnce } from './socket-methods'
import { clientIpForRest, clientIpForSockets } from './auth/client-ip'
import { SessionConnections, trackSockets } from './auth/sessions'
import { AccessLoader, accessLoaderSlot } from './access/context'
import { recordAudit } from './hooks/record-audit'
import { startJobs, stopJobs } from './ops/jobs'
import { lifecycle } from './ops/lifecycle'
import { metrics, metricsEndpoint } from './ops/metrics'
import { healthEndpoints } from './ops/health'
import { openApiEndpoints } from './ops/openapi/serve'
import { consoleConfigEndpoint } from './ops/console'
import { logStreamErrors, observeRequests } from './ops/observe'
import { observeCall } from './hooks/observe-call'
import { redis, redisReady, closeRedis } from './cluster/redis'
import { sharedEvents, sharedEventsReady, closeSharedEvents } from './cluster/events'
import { notices, noticesReady, closeNotices } from './cluster/notices'
import { withLeaseWaiting } from './cluster/lease'
import { createLocks } from './cluster/locks'
import { processorEvents } from './services/subscriptions/processor-events'
import { unsubscribePage } from './services/notifications/unsubscribe-page'
import { fhirRoutes } from './services/fhir/routes'
import { checkPaymentsForProduction } from './providers/payments-mode'
import { createProviders } from './providers/registry'
import { createBlobs } from './attachments/blobs'
import { attachmentContent } from './services/attachments/content-routes'

const closeConnections = async (app: Application) => {
  await closeSharedEvents(app)
  await closeNotices(app)
  await closeRedis(app)
  await closeStore(app)
}

/** Builds the app from config/ (and environment variables), with optional overrides (tests use them). */
export const createApp = (overrides: ConfigurationOverrides = {}): Application => {
  const app: Application = koa(feathers())
  // config/ and the environment, the variables given in seconds, then the caller's overrides; checked before anything reads them.
  const loaded = configuration()(app) as unknown as Record<string, unknown> // (cast: node-config's object, checked just below)
  const settings = checkConfiguration(
    mergeSettings(mergeSettings({ ...loaded }, settingsFromSecondsVariables()), overrides)
  )
  for (const [key, value] of Object.entries(settings)) app.set(key as keyof Configuration, value)
  logger.setLevel(app.get('logLevel'))
  // Production takes real money only, unless ALLOW_SANDBOX_PAYMENTS says otherwise (then a warning at every start).
  const sandboxPayments = checkPaymentsForProduction(settings)
  if (sandboxPayments) logger.warn(sandboxPayments)
  // The sandbox clock moves time for every rule: a development tool, never a production one.
  if (settings.sandboxClock && process.env.NODE_ENV === 'production')
    throw new StartupError(
      'Refusing to start in production with SANDBOX_CLOCK=true: anyone with an admin account could move time forward ' +
        '(renewals, no-shows, retention). Remove SANDBOX_CLOCK, or set it to false.'
    )

  // Koa reads X-Forwarded-For only when the app sits behind a trusted proxy (TRUST_PROXY).
  app.proxy = app.get('trustProxy')

  // First: wraps every other setup/teardown hook (readiness, graceful shutdown).
  const inFlight = lifecycle(app)
  const meters = metrics(app)
  logStreamErrors(app)

  app.use(observeRequests(app))
  app.use(securityHeaders())
  app.use(cors())
  app.use(errorHandler())
  app.use(healthEndpoints(app))
  app.use(metricsEndpoint(app))
  app.use(openApiEndpoints(app))
  app.use(consoleConfigEndpoint(app))
  app.use(staticFiles(app.get('public'), app))
  app.use(parseAuthentication())
  app.use(clientIpForRest())
  // Signed processor events are verified over their raw bytes, so they are read before the body parser.
  app.use(processorEvents(app))
  // The one-click unsubscribe of notification emails: mail clients post a form-encoded body.
  app.use(unsubscribePage(app))
  // Attachment bytes (PUT/GET of signed URLs, multipart uploads): streamed, so read before any body parser.
  app.use(attachmentContent(app))
  // FHIR R4 under /fhir (its own body reading: FHIR JSON, answered as FHIR JSON or OperationOutcome).
  app.use(fhirRoutes(app))
  app.use(requireJson())
  app.use(
    bodyParser({
      jsonLimit: app.get('bodyLimit'),
      formLimit: app.get('bodyLimit'),
      textLimit: app.get('bodyLimit'),
      jsonStrict: true,
      multipart: false,
      urlencoded: false,
      text: false
    })
  )
  app.configure(rest())
  const clientIp = clientIpForSockets(app.proxy)
  app.configure(
    socketio({ cors: { origin: true }, maxHttpBufferSize: 1e6 }, (io) => {
      clientIp(io)
      trackSockets(io)
      answerUnknownMethods(io)
      sendEventsEncodedOnce(app, io)
    })
  )

  // The composition root: one set of dependencies for this app, handed to the services and the domain.
  const events = new EventBus<EventMap>()
  const sandboxClock = settings.sandboxClock ? new OffsetClock(settings.clock ?? systemClock) : null
  const deps: Deps = {
    settings: { get: (key) => app.get(key) },
    logger,
    clock: sandboxClock ?? settings.clock ?? systemClock,
    sandboxClock,
    passes: createTimeDrivenPasses(logger),
    events,
    announce: createAnnouncer(app, events),
    providers: createProviders({ get: (key) => app.get(key) }, () => app.server?.address()),
    stores: {} as Stores, // (filled in just after the services registered, before any call is served)
    // Auth: each caller's memberships (cached per account, stamped with its access version), and the sockets of
    // sessions that end.
    access: accessLoaderSlot.set(
      app,
      new AccessLoader({
        memberships: (uid) => deps.stores.members._find({ query: { uid }, paginate: false }),
        ttlMs: () => app.get('accessCache').ttlMs,
        now: () => deps.clock.now()
      })
    ),
    sessions: new SessionConnections(app, logger),
    inFlight,
    meters,
    locks: createLocks(app),
    // Attachment bytes: the embedded store under DATA_DIR/attachments/, or S3 when S3_BUCKET is set.
    blobs: createBlobs(settings)
  }
  depsSlot.set(app, deps)

  app.configure(store)
  app.configure(redis)
  app.configure(authentication)
  // After authentication (a login's event carries its token and stays here), before every shared service.
  app.configure(sharedEvents)
  app.configure(notices)
  services(app, deps)
  Object.assign(deps.stores, storesOf(app))
  app.configure(channels)
  guardRouteLookup(app)

  app.hooks({
    around: {
      all: [observeCall, logError, requireScalarId, recordAudit, rejectUnsafeKeys]
    }
  })
  app.hooks({
    setup: [
      async (_context: HookContext, next: NextFunction) => {
        try {
          await storeReady(app)
          await redisReady(app)
          await sharedEventsReady(app)
          await noticesReady(app)
          // Half-written temp files of an upload a crash (kill -9) interrupted.
          await deps.blobs.sweep()
          // One instance at a time (REDIS_URL): instances starting together create the admin once.
          await withLeaseWaiting(app, 'admin-bootstrap', 30_000, () => ensureAdmin(app))
        } catch (error) {
          // The server does not start: nothing stays open behind the error (sockets, HTTP port, store and its
          // data folder's lock, Redis).
          app.io?.close()
          app.server?.close()
          await closeConnections(app).catch(() => undefined)
          throw error
        }
        await next()
        await startJobs(app)
      }
    ],
    teardown: [
      async (_context: HookContext, next: NextFunction) => {
        await stopJobs(app)
        await next()
        await deps.blobs.close()
        await closeConnections(app)
      }
    ]
  })
  return app
}
