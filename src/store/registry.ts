// The app's store: the engine chosen by config (MONGODB_URL, else the embedded engine under DATA_DIR) kept in a slot
// of the app, each service's store built on it with its indexes, and start-up readiness, health and closing.
import path from 'node:path'
import type { Application } from '../declarations'
import { logger } from '../logger'
import { appSlot } from '../runtime'
import type { IndexSpec, Store, StoreDoc, StoreOptions, UntypedDoc } from './contract'
import { lockDataDir } from './data-lock'
import type { AdapterSettings, Engine, EngineAdapter } from './engines/engine'
import { mongoEngine } from './engines/mongodb'
import { nedbEngine, type NedbEngine } from './engines/nedb/engine'
import type { GroupCommit } from './engines/nedb/commit'
import { EngineStore, type OperationTimer, type StoreSettings } from './store'
import type { StoreSync } from './sync'

/** The app's timers of store operations by collection, when the app keeps metrics (set by the metrics module). */
export const storeTimerSlot = appSlot<(collection: string) => OperationTimer>('store operation timers')

/** The app's engine, and the loads of the stores created so far (start-up waits for all of them). */
const engineSlot = appSlot<{ engine: Engine; ready: Promise<void>[]; indexesBuilt: boolean }>('store engine')

/** The embedded engine's sync setting (STORE_SYNC). */
export const storeSyncOf = (app: Application): StoreSync => app.get('storeSync')

/**
 * Opens the datastore chosen by config (MONGODB_URL, else DATA_DIR) and keeps it on the app. The embedded engine
 * first takes the data folder's lock (src/store/data-lock.ts): one writer per folder; MongoDB needs none.
 */
export const store = (app: Application) => {
  const url = app.get('mongodb')
  const engine = url
    ? mongoEngine(url, app.get('mongodbConnectTimeoutMs'))
    : nedbEngine(
        path.resolve(app.get('dataDir')),
        lockDataDir(app.get('dataDir')),
        app.get('nedb').compactionIntervalMs,
        storeSyncOf(app),
        app.get('nedb').heapGrowingPercent
      )
  engineSlot.set(app, { engine, ready: [], indexesBuilt: false })
  logger.info(
    `Datastore: ${engine.kind === 'mongodb' ? 'MongoDB' : `embedded NeDB in ${path.resolve(app.get('dataDir'))} (STORE_SYNC=${storeSyncOf(app)})`}`
  )
}

// Opened by `store`, configured before the services.
const engineOf = (app: Application): Engine => engineSlot.require(app).engine

/** The store class, as a service class built on it derives from it. */
export type StoreClass = new (engine: EngineAdapter, settings?: StoreSettings) => EngineStore

/** A service class built on the store (its own create/patch/remove calling domain functions). */
export type StoreExtension = (
  Base: StoreClass
) => new (engine: EngineAdapter, settings?: StoreSettings) => object

/**
 * Builds a service's store on the configured engine and schedules its indexes; `extend` derives the service's own
 * class from the store class (so both engines run the same methods).
 */
export const createStore = <Result = UntypedDoc, Data = UntypedDoc, Patch = UntypedDoc, Query = StoreDoc>(
  app: Application,
  options: StoreOptions,
  extend?: StoreExtension
): Store<Result, Data, Patch, Query> => {
  const engine = engineOf(app)
  const settings: AdapterSettings = {
    id: 'id',
    paginate: options.paginate === undefined ? app.get('paginate') : options.paginate,
    multi: options.multi ?? false,
    events: options.events ?? [],
    // `$and`/`$or` carry the access scopes (hooks/scope-access.ts); clients' queries are checked by each service's query schema first.
    operators: [
      '$in',
      '$nin',
      '$lt',
      '$lte',
      '$gt',
      '$gte',
      '$ne',
      '$and',
      '$or',
      ...(options.operators ?? [])
    ]
  }
  // (made before the indexes are scheduled, which open the collection)
  const { adapter, journal } = engine.adapter(options.name, settings, !!options.journal)
  const indexes: IndexSpec[] = [{ fields: { id: 1 }, unique: true }, ...(options.indexes ?? [])]
  let loading: Promise<void> | undefined
  const load = () => (loading ??= engine.ensureIndexes(options.name, indexes))
  if (!options.deferLoad) engineSlot.require(app).ready.push(load())
  const storeSettings: StoreSettings = {
    timer: storeTimerSlot.get(app)?.(options.name),
    afterWrite: options.afterWrite,
    journal
  }
  const service = extend
    ? (new (extend(EngineStore))(adapter, storeSettings) as unknown as Store<Result, Data, Patch, Query>)
    : new EngineStore<Result, Data, Patch, Query>(adapter, storeSettings)
  if (options.deferLoad) service.loadDeferred = load
  return service
}

/** The embedded engine's commit logs by collection (empty on MongoDB): their write statistics, for tests and benches. */
export const storeEngineCommits = (app: Application): Map<string, GroupCommit> => {
  const engine = engineOf(app)
  return engine.kind === 'nedb' ? (engine as NedbEngine).commits : new Map()
}

/** Resolves once every declared index exists (and the embedded files are loaded). */
export const storeReady = async (app: Application) => {
  const state = engineSlot.require(app)
  await Promise.all(state.ready)
  state.indexesBuilt = true
}

/** Readiness of the store: it answers, and every declared index was built. */
export const storeHealth = async (app: Application): Promise<{ reachable: boolean; indexes: boolean }> => {
  const engine = engineOf(app)
  const reachable = engine
    ? await engine.ping().then(
        () => true,
        () => false
      )
    : false
  return { reachable, indexes: engineSlot.get(app)?.indexesBuilt ?? false }
}

/** Closes the datastore (compacting the embedded files). */
export const closeStore = async (app: Application) => {
  await engineOf(app)?.close()
}
