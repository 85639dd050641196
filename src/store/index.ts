// The store: builds every service's adapter — MongoDB when MONGODB_URL is set, otherwise the embedded
// NeDB engine persisted under DATA_DIR — and creates each service's declared indexes on both engines.
import fs from 'node:fs'
import path from 'node:path'
import { MongoClient, ObjectId, type Db } from 'mongodb'
import NeDB from '@seald-io/nedb'
import { NeDBService } from 'feathers-nedb'
import { MongoDBService } from '@feathersjs/mongodb'
import { Conflict, NotFound, GeneralError, MethodNotAllowed } from '@feathersjs/errors'
import type { FeathersService, Id, NullableId, Params, Paginated } from '@feathersjs/feathers'
import type { AdapterParams, AdapterQuery, PaginationOptions } from '@feathersjs/adapter-commons'
import type { Application, ServiceTypes } from '../declarations'
import { logger } from '../logger'
import { IndexedNeDB } from './nedb-candidates'
import { useGroupCommit, type GroupCommit, type StoreSync } from './nedb-commit'
import { NeDBJournal } from './nedb-journal'
import { lockDataDir, type DataLock } from './data-lock'
import { diagnoseDataFile } from './nedb-repair'
import { appSlot } from '../runtime'
import { StartupError, reasonOf, shownUrl } from '../startup-error'

export interface IndexSpec {
  fields: Record<string, 1 | -1>
  unique?: boolean
  sparse?: boolean
}

export interface StoreOptions {
  /** Collection (NeDB file) name. */
  name: string
  /** Indexes the store creates at startup; a unique index on `id` is always added. */
  indexes?: IndexSpec[]
  /** Query operators beyond Feathers' standard ones that this service accepts (e.g. `$elemMatch`). */
  operators?: string[]
  /** Allow multi patch/remove (internal calls only; external multi calls are refused by the app). */
  multi?: boolean
  /** Custom events the service emits besides the standard ones. */
  events?: string[]
  /**
   * Called after every write of the store (create, update, patch, remove; internal calls included) with the
   * documents written, before the write resolves — for state derived from them that must never lag (e.g. the
   * access-context cache's version stamps).
   */
  afterWrite?: (docs: any[]) => Promise<void>
  /** Pagination; defaults to the app's `paginate` setting. */
  paginate?: false | { default: number; max: number }
  /**
   * An append-only log (create and multi remove only). On the embedded engine a create is one line added to the
   * data file and nothing else; queries first bring the in-memory copy up to date from the file, in one batch
   * (src/store/nedb-journal.ts). Unique indexes are not checked at create there: the log has one writer. On
   * MongoDB nothing changes. Its documents are plain JSON (no Date values).
   */
  journal?: boolean
  /**
   * Open the collection (load the embedded file, build the indexes) only when the service's `loadDeferred()` is
   * called, not as part of start-up readiness: for a large collection derived from others that is loaded in the
   * background once the server is up. On the embedded engine, operations issued before wait for the load.
   */
  deferLoad?: boolean
}

/** Params of a store call: the app's params plus the adapter's own (`paginate`, `adapter: { multi }`). */
export type StoreParams<Q = AdapterQuery> = AdapterParams<Q>

/** Params of an internal (`_`) call: any query of the portable subset, operators included. */
export type InternalParams = AdapterParams<Record<string, any>>

/** A document as an internal write hands it to the store: the schema's fields plus server-side bookkeeping. */
export type StoreDoc = Record<string, any>

/** A call by id answers one document; a call with a `null` id (multi) answers the list it wrote. */
export type ByIdResult<I, R> = I extends null ? R[] : R

/** A stored document: the schema's fields, typed, plus the internal fields the external view leaves out. */
export type Stored<T> = T & StoreDoc

/**
 * The adapter every store service offers, on both engines, typed by the service's schemas: `Result` (the stored
 * document), `Data` (a create body), `Patch` (a patch body) and `Query` (what a find may ask). The `_` methods are
 * the internal ones (no hooks, no events) domain functions write with; they take whole documents and update
 * operators, hence `StoreDoc`.
 */
export interface StoreService<Result = any, Data = any, Patch = any, Query = Record<string, any>> {
  id: string
  options: any
  /** `$populate` may name this service (src/hooks/populate.ts). */
  populatable?: boolean
  /** Update operators clients may send in a patch body (src/hooks/reject-unsafe-keys.ts). */
  bodyOperators?: string[]
  /** The methods whose events webhooks may subscribe to, when not the exposed ones (src/services/webhooks/webhook-patterns.ts). */
  eventMethods?: string[]
  /**
   * A journal collection on the embedded engine: its data file and sync mode, for a writer that appends the lines
   * itself (the audit writer thread; the queries catch up from the file as from the store's own appends). Else
   * undefined.
   */
  journalFile(): { filename: string; sync: StoreSync } | undefined
  /** With the `deferLoad` option: opens the collection (once; later calls share the first). */
  loadDeferred?: () => Promise<void>
  find(params?: StoreParams<Query> & { paginate?: PaginationOptions }): Promise<Paginated<Result>>
  find(params?: StoreParams<Query> & { paginate: false }): Promise<Result[]>
  find(params?: StoreParams<Query>): Promise<Paginated<Result> | Result[]>
  get(id: Id, params?: StoreParams<Query>): Promise<Result>
  // The public writes act on one document (clients' multi writes are refused); multi writes use the `_` methods.
  create(data: Data, params?: StoreParams<Query>): Promise<Result>
  update(id: Id, data: Data, params?: StoreParams<Query>): Promise<Result>
  patch(id: NullableId, data: Patch, params?: StoreParams<Query>): Promise<Result>
  remove(id: NullableId, params?: StoreParams<Query>): Promise<Result>
  _find(params?: InternalParams & { paginate?: PaginationOptions }): Promise<Paginated<Result>>
  _find(params?: InternalParams & { paginate: false }): Promise<Result[]>
  _find(params?: InternalParams): Promise<Paginated<Result> | Result[]>
  _get(id: Id, params?: InternalParams): Promise<Result>
  _create(data: StoreDoc, params?: InternalParams): Promise<Result>
  _create(data: StoreDoc[], params?: InternalParams): Promise<Result[]>
  _update(id: Id, data: StoreDoc, params?: InternalParams): Promise<Result>
  _patch<I extends NullableId>(id: I, data: StoreDoc, params?: InternalParams): Promise<ByIdResult<I, Result>>
  _remove<I extends NullableId>(id: I, params?: InternalParams): Promise<ByIdResult<I, Result>>
  /** The adapter's split of a query into conditions and filters (`$limit`, `$sort`, …). */
  filterQuery(
    id: NullableId,
    params: InternalParams
  ): { query: Record<string, any>; filters: Record<string, any>; paginate: any }
  /** The adapter's options for one call (the engine's collection is `Model`). */
  getOptions(params: InternalParams): any
  /** MongoDB only: the driver's collection. */
  getModel(params: InternalParams): Promise<any>
  /**
   * Visits every stored document with at least `fields` (no hooks, no copies where the engine holds them in memory:
   * `visit` must neither change nor keep the object it is given). For building an in-process index from a whole
   * collection without a copy of it.
   */
  _scan(fields: string[], visit: (doc: Record<string, any>) => void): Promise<void>
}

/** A new public id: 24 hex characters, time-ordered, the same shape on both engines. */
export const newId = () => new ObjectId().toHexString()

const strip = (doc: any) => {
  if (!doc || typeof doc !== 'object') return doc
  const { _id, ...rest } = doc
  return rest
}
const stripAll = (result: any) => {
  if (Array.isArray(result)) return result.map(strip)
  if (result && Array.isArray(result.data) && 'total' in result)
    return { ...result, data: result.data.map(strip) }
  return strip(result)
}

// Driver failures reach clients as a bare "Datastore error": never the driver's message, topology or reply.
// (@feathersjs/mongodb wraps most of them in a GeneralError that still carries the driver's data.)
const isDriverError = (error: any) =>
  error?.name?.startsWith?.('Mongo') ||
  (error?.name === 'GeneralError' &&
    error?.data &&
    typeof error.data === 'object' &&
    ('errorLabelSet' in error.data ||
      'errorResponse' in error.data ||
      String(error.data.name ?? '').startsWith('Mongo')))

// Translate engine errors (unique violations, driver failures) into Feathers errors.
export const storeError = (error: any): never => {
  const duplicate =
    error?.errorType === 'uniqueViolated' || error?.code === 11000 || error?.data?.code === 11000
  if (duplicate) {
    const keyValue =
      error.keyValue ??
      error.data?.keyValue ??
      error.data?.writeErrors?.[0]?.keyValue ??
      error.writeErrors?.[0]?.err?.keyValue ??
      {}
    const key = error.key ?? Object.keys(keyValue).join(',')
    throw new Conflict('A record with the same unique value already exists', key ? { key } : undefined)
  }
  if (isDriverError(error)) {
    logger.error('Datastore error:', error?.message ?? error)
    throw new GeneralError('Datastore error')
  }
  throw error
}

const withoutIdChange = (data: any) => {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return data
  const { id: _i, _id, ...rest } = data
  return rest
}

const writtenDocs = (result: any): any[] => (Array.isArray(result) ? result : result ? [result] : [])

/** Starts timing one store operation; the returned function ends it. */
type OperationTimer = (operation: string) => () => void

/** The app's timers of store operations by collection, when the app keeps metrics (set by the metrics module). */
export const storeTimerSlot = appSlot<(collection: string) => OperationTimer>('store operation timers')

const timed = async <T>(
  timer: OperationTimer | undefined,
  operation: string,
  run: () => Promise<T>
): Promise<T> => {
  if (!timer) return run()
  const end = timer(operation)
  try {
    return await run()
  } finally {
    end()
  }
}

// Public ids (`id`), `_id` never leaves the store, engine errors mapped, identical on both engines; each
// operation's latency is recorded.
const mixin = (Base: any): any =>
  class StoreAdapter extends Base {
    private async written<T>(result: T): Promise<T> {
      const afterWrite = this.options.afterWrite as StoreOptions['afterWrite']
      if (afterWrite) await afterWrite(writtenDocs(result))
      return result
    }
    private get journal(): NeDBJournal | undefined {
      return this.options.journal
    }
    journalFile() {
      const journal = this.journal
      return journal ? { filename: journal.filename, sync: journal.mode } : undefined
    }
    async _scan(fields: string[], visit: (doc: Record<string, any>) => void) {
      await this.journal?.catchUp()
      await timed(this.options.timer, 'scan', () => this.scanAll(fields, visit))
    }
    async _find(params?: Params) {
      await this.journal?.catchUp()
      return timed(this.options.timer, 'find', async () =>
        stripAll(await super._find(params).catch(storeError))
      )
    }
    async _get(id: Id, params?: Params) {
      await this.journal?.catchUp()
      return timed(this.options.timer, 'get', async () => {
        const result = await super._get(id, params).catch(storeError)
        if (!result) throw new NotFound(`No record found for id '${id}'`)
        return strip(result)
      })
    }
    async _create(data: any, params?: Params) {
      const records = Array.isArray(data)
        ? data.map((item) => ({ ...withoutIdChange(item), id: newId() }))
        : { ...withoutIdChange(data), id: newId() }
      const journal = this.journal
      if (journal) {
        // Journal-first: the line (with NeDB's `_id`, the same as `id`) is the write; the copy queries use
        // catches up at the next read.
        const docs = writtenDocs(records)
        return timed(this.options.timer, 'create', async () => {
          await journal.append(docs.map((doc) => ({ ...doc, _id: doc.id })))
          return this.written(records)
        })
      }
      return timed(this.options.timer, 'create', async () =>
        this.written(stripAll(await super._create(records, params).catch(storeError)))
      )
    }
    async _update(id: Id, data: any, params?: Params) {
      if (this.journal) throw new MethodNotAllowed('An append-only log is not updated')
      return timed(this.options.timer, 'update', async () =>
        this.written(strip(await super._update(id, withoutIdChange(data), params).catch(storeError)))
      )
    }
    async _patch(id: NullableId, data: any, params?: Params) {
      if (this.journal) throw new MethodNotAllowed('An append-only log is not patched')
      return timed(this.options.timer, 'patch', async () =>
        this.written(stripAll(await super._patch(id, withoutIdChange(data), params).catch(storeError)))
      )
    }
    async _remove(id: NullableId, params?: Params) {
      const journal = this.journal
      if (journal) {
        // Removed from the caught-up copy, then the file is rewritten from it (src/store/nedb-journal.ts).
        await journal.catchUp()
        return timed(this.options.timer, 'remove', async () => {
          const removed = stripAll(await super._remove(id, params).catch(storeError))
          if (writtenDocs(removed).length > 0) await journal.rewrite()
          return this.written(removed)
        })
      }
      return timed(this.options.timer, 'remove', async () =>
        this.written(stripAll(await super._remove(id, params).catch(storeError)))
      )
    }
  }

// @feathersjs/mongodb's multi patch/remove find the ids first and then write `{ id: { $in: ids } }`, dropping the
// query's conditions at write time; code here relies on those conditions as concurrency guards (as the embedded
// engine's single `update(query, { multi })` honours them). So on MongoDB each document is written with
// `findOneAndUpdate`/`findOneAndDelete` under the full query, and only documents actually written are returned.
const guardedMulti = (Base: any): any =>
  class GuardedMulti extends Base {
    // One cursor over the collection with only `fields`.
    async scanAll(fields: string[], visit: (doc: Record<string, any>) => void) {
      const projection: Record<string, 0 | 1> = { _id: 0 }
      for (const field of fields) projection[field] = 1
      for await (const doc of (await this.getModel({})).find({}, { projection, batchSize: 5000 })) visit(doc)
    }
    async _multi(
      method: 'patch' | 'remove',
      params: Params,
      write: (id: Id, params: Params) => Promise<any>
    ) {
      if (!this.allowsMulti(method, params)) throw new MethodNotAllowed(`Can not ${method} multiple entries`)
      const {
        $select,
        $sort: _sort,
        $limit: _limit,
        $skip: _skip,
        ...conditions
      } = (params.query ?? {}) as Record<string, any>
      const found = await this._find({
        ...params,
        paginate: false,
        query: { ...params.query, $select: ['id'] }
      })
      const written: any[] = []
      for (const { id } of found) {
        const one = await write(id, {
          ...params,
          query: { ...conditions, ...($select ? { $select } : {}) }
        }).catch((error: any) => {
          if (error?.code === 404) return null
          throw error
        })
        if (one) written.push(one)
      }
      return written
    }
    async _patch(id: NullableId, data: any, params: Params = {}) {
      if (id !== null) return super._patch(id, data, params)
      return this._multi('patch', params, (one, oneParams) => super._patch(one, data, oneParams))
    }
    async _remove(id: NullableId, params: Params = {}) {
      if (id !== null) return super._remove(id, params)
      return this._multi('remove', params, (one, oneParams) => super._remove(one, oneParams))
    }
  }

// feathers-nedb answers a paginated `$limit: 0` (a count) by also loading and copying every matching document;
// here it only counts.
const nedbCount = (Base: any): any =>
  class NedbCount extends Base {
    // The documents held in memory, as they are (no copy, every field).
    async scanAll(_fields: string[], visit: (doc: Record<string, any>) => void) {
      for (const doc of this.options.Model.getAllData()) visit(doc)
    }
    async _find(params: any = {}) {
      const paginate = params.paginate !== undefined ? params.paginate : this.options.paginate
      if (paginate && paginate.default && params.query?.$limit === 0) {
        const { query, filters } = this.filterQuery(null, params)
        const total = await this.getOptions(params).Model.countAsync(query)
        return { total, limit: 0, skip: filters.$skip ?? 0, data: [] }
      }
      return super._find(params)
    }
  }

const NedbStore = mixin(nedbCount(NeDBService))
const MongoStore = mixin(guardedMulti(MongoDBService))

export interface Engine {
  kind: 'mongodb' | 'nedb'
  collection(name: string): any
  ensureIndexes(name: string, indexes: IndexSpec[]): Promise<void>
  /** Resolves when the store answers (readiness); rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}

const nedbEngine = (
  dataDir: string,
  lock: DataLock,
  compactionIntervalMs: number,
  sync: StoreSync
): Engine & { commits: Map<string, GroupCommit>; journal(name: string): NeDBJournal } => {
  const stores = new Map<string, NeDB>()
  const commits = new Map<string, GroupCommit>()
  const journals = new Map<string, NeDBJournal>()
  // Collections whose file was loaded (a deferred one may never be; its operations would wait for the load forever).
  const opened = new Set<NeDB>()
  const collection = (name: string) => {
    let store = stores.get(name)
    if (!store) {
      store = new IndexedNeDB({ filename: path.join(dataDir, `${name}.db`) })
      // Appends of concurrent writes share one file write and sync (src/store/nedb-commit.ts, STORE_SYNC).
      const commit = useGroupCommit(store, sync)
      if (commit) commits.set(name, commit)
      // The append-only files are rewritten (atomically: temp file + rename) now and then to stay small.
      if (compactionIntervalMs > 0) store.setAutocompactionInterval(compactionIntervalMs)
      stores.set(name, store)
    }
    return store
  }
  // A journal-first collection: the file is the journal's, the datastore its in-memory copy.
  const journal = (name: string) => {
    let log = journals.get(name)
    if (!log) {
      const copy = new IndexedNeDB()
      log = new NeDBJournal(path.join(dataDir, `${name}.db`), copy, sync)
      stores.set(name, copy)
      journals.set(name, log)
    }
    return log
  }
  return {
    kind: 'nedb',
    commits,
    collection,
    journal,
    async ensureIndexes(name, indexes) {
      const store = collection(name)
      // NeDB uses a compound index only when a query pins every one of its fields, never its leading field
      // alone (as MongoDB does), so a non-unique compound index is kept on its leading field here.
      const declared = indexes.map((index) => {
        const fields = Object.keys(index.fields)
        return {
          fieldName: fields.length === 1 || !index.unique ? fields[0] : fields,
          unique: !!index.unique,
          sparse: !!index.sparse
        }
      })
      try {
        await store.loadDatabaseAsync()
        // Only a loaded collection is compacted at close: one that failed to load holds nothing (compacting it
        // would empty its file).
        opened.add(store)
        for (const index of declared) await store.ensureIndexAsync(index)
        await journals.get(name)?.open()
      } catch (error) {
        // A duplicate unique value or unreadable lines: one line naming the file, the line, the index and the fix.
        const file = path.join(dataDir, `${name}.db`)
        const threshold = journals.has(name)
          ? undefined
          : (store as unknown as { persistence: { corruptAlertThreshold: number } }).persistence
              .corruptAlertThreshold
        let problem: string | undefined
        try {
          problem = diagnoseDataFile(
            file,
            declared.map((index) => ({ ...index, fieldName: [index.fieldName].flat().sort().join(',') })),
            threshold
          )
        } catch {
          problem = undefined // unreadable file: the original error says why
        }
        throw problem ? new StartupError(problem, { cause: error }) : error
      }
    },
    async ping() {
      await fs.promises.access(dataDir, fs.constants.R_OK | fs.constants.W_OK)
    },
    async close() {
      try {
        for (const [name, store] of stores) {
          if (journals.has(name)) continue
          store.stopAutocompaction()
          if (!opened.has(store)) continue
          await store.compactDatafileAsync().catch(() => undefined)
        }
        for (const commit of commits.values()) {
          await commit.drain()
          commit.release()
        }
        for (const log of journals.values()) await log.close()
      } finally {
        // Last: nothing of this app writes to the folder any more.
        lock.release()
      }
    }
  }
}

// Start-up fails with one line for the operator when MONGODB_URL is not a connection string, or when MongoDB cannot
// be used within MONGODB_CONNECT_TIMEOUT_MS (given to the driver as its server selection and connect timeouts,
// unless the URL sets them itself).
const mongoClient = (url: string, timeoutMs: number): MongoClient => {
  const named = (option: string) => new RegExp(`[?&]${option}=`, 'i').test(url)
  const options = {
    ...(named('serverSelectionTimeoutMS') ? {} : { serverSelectionTimeoutMS: timeoutMs }),
    ...(named('connectTimeoutMS') ? {} : { connectTimeoutMS: timeoutMs })
  }
  try {
    return new MongoClient(url, options)
  } catch (error) {
    const reason = reasonOf(error).replaceAll(url, '…')
    throw new StartupError(
      `MONGODB_URL is not a MongoDB connection string (${reason}); set it to mongodb://host:27017/clinic (or mongodb+srv://…), or leave it empty for the embedded engine`,
      { cause: error }
    )
  }
}

const mongoStartupError = (url: string, timeoutMs: number, error: any) => {
  const where = `MongoDB at MONGODB_URL ${shownUrl(url)}`
  const reason = reasonOf(error).replaceAll(url, '…')
  return error?.name === 'MongoServerSelectionError'
    ? new StartupError(
        `${where} could not be reached within ${timeoutMs} ms (${reason}); start MongoDB or set MONGODB_URL to a server this host can reach (MONGODB_CONNECT_TIMEOUT_MS sets the wait)`,
        { cause: error }
      )
    : new StartupError(
        `${where} refused the connection (${reason}); check the user, password and database in MONGODB_URL`,
        { cause: error }
      )
}

const mongoEngine = (url: string, timeoutMs: number): Engine => {
  const client = mongoClient(url, timeoutMs)
  const connected = client
    .connect()
    .then(() => client.db())
    .catch((error) => {
      throw mongoStartupError(url, timeoutMs, error)
    })
  // (start-up reports it once, through storeReady)
  connected.catch(() => undefined)
  return {
    kind: 'mongodb',
    collection: (name: string) => connected.then((db: Db) => db.collection(name)),
    async ensureIndexes(name, indexes) {
      const db = await connected
      for (const index of indexes) {
        await db
          .collection(name)
          .createIndex(index.fields, { unique: !!index.unique, sparse: !!index.sparse })
      }
    },
    async ping() {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('MongoDB did not answer a ping within 2 s')), 2000)
      })
      try {
        await Promise.race([connected.then((db) => db.command({ ping: 1 })), timeout])
      } finally {
        clearTimeout(timer)
      }
    },
    async close() {
      await client.close()
    }
  }
}

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
        storeSyncOf(app)
      )
  engineSlot.set(app, { engine, ready: [], indexesBuilt: false })
  logger.info(
    `Datastore: ${engine.kind === 'mongodb' ? 'MongoDB' : `embedded NeDB in ${path.resolve(app.get('dataDir'))} (STORE_SYNC=${storeSyncOf(app)})`}`
  )
}

// Opened by `store`, configured before any service.
const engineOf = (app: Application): Engine => engineSlot.require(app).engine

/** A service class built on the store's adapter (its own create/patch/remove calling domain functions). */
export type StoreExtension = (Base: any) => any

/**
 * Builds a service's adapter on the configured engine and schedules its indexes; `extend` derives the
 * service's own class from the engine's adapter class (so both engines run the same methods).
 */
export const createStore = <Result = any, Data = any, Patch = any, Query = AdapterQuery>(
  app: Application,
  options: StoreOptions,
  extend?: StoreExtension
): StoreService<Result, Data, Patch, Query> => {
  const engine = engineOf(app)
  // (made before the indexes are scheduled, which open the collection)
  const journal =
    options.journal && engine.kind === 'nedb'
      ? (engine as ReturnType<typeof nedbEngine>).journal(options.name)
      : undefined
  const indexes: IndexSpec[] = [{ fields: { id: 1 }, unique: true }, ...(options.indexes ?? [])]
  let loading: Promise<void> | undefined
  const load = () => (loading ??= engine.ensureIndexes(options.name, indexes))
  if (!options.deferLoad) engineSlot.require(app).ready.push(load())
  const timer = storeTimerSlot.get(app)?.(options.name)
  const common = {
    id: 'id',
    timer,
    paginate: options.paginate === undefined ? app.get('paginate') : options.paginate,
    multi: options.multi ?? false,
    events: options.events ?? [],
    afterWrite: options.afterWrite,
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
  let service: StoreService<Result, Data, Patch, Query>
  if (engine.kind === 'mongodb') {
    const Mongo = extend ? extend(MongoStore) : MongoStore
    service = new Mongo({ ...common, Model: engine.collection(options.name), disableObjectify: true })
  } else {
    const Nedb = extend ? extend(NedbStore) : NedbStore
    service = new Nedb({ ...common, Model: engine.collection(options.name), journal })
  }
  if (options.deferLoad) service.loadDeferred = load
  return service
}

/**
 * The store adapters of services registered by path, for domain functions (internal `_` methods: no hooks, no
 * events), named as in `paths`.
 */
/**
 * A service seen through the store's untyped surface: for a path known only at run time (a `$populate` target, the
 * path of an announced change) and for domain functions, whose internal documents carry bookkeeping fields beyond the
 * service's external schema.
 */
export const serviceAt = (app: Application, path: string): FeathersService<Application, StoreService> =>
  app.service(path as keyof ServiceTypes) as unknown as FeathersService<Application, StoreService>

export const storesByPath = <P extends Record<string, keyof ServiceTypes>>(
  app: Application,
  paths: P
): Record<keyof P, StoreService> => {
  // Internal documents carry bookkeeping fields and states beyond each service's external schema: untyped results here.
  const byName = {} as Record<keyof P, StoreService>
  for (const name of Object.keys(paths) as (keyof P)[]) byName[name] = serviceAt(app, paths[name])
  return byName
}

/** The embedded engine's commit logs by collection (empty on MongoDB): their write statistics, for tests and benches. */
export const storeEngineCommits = (app: Application): Map<string, GroupCommit> => {
  const engine = engineOf(app) as Engine & { commits?: Map<string, GroupCommit> }
  return engine.commits ?? new Map()
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

export interface GroupSums {
  /** The value of the group field (null when absent). */
  group: unknown
  count: number
  /** Per named sum: the total of its numeric field. */
  sums: Record<string, number>
}

/**
 * Sums numeric fields per value of `groupBy` over the documents the service's `params.query` selects — computed
 * in the store, never by a client-facing find: a `$group` aggregation on MongoDB; on the embedded engine a scan
 * of the matching documents reading only the grouped and summed fields. `sums` maps a result name to a field
 * path (dot notation for nested fields). `$limit`, `$skip`, `$sort` and `$select` are ignored.
 */
export const sumByGroup = async (
  app: Application,
  service: StoreService,
  params: Params,
  groupBy: string,
  sums: Record<string, string>
): Promise<GroupSums[]> => {
  const { query } = service.filterQuery(null, { ...params, paginate: false })
  const names = Object.keys(sums)
  if (engineOf(app).kind === 'mongodb') {
    const collection = await service.getModel(params)
    const rows = await collection
      .aggregate([
        { $match: query },
        {
          $group: {
            _id: `$${groupBy}`,
            count: { $sum: 1 },
            ...Object.fromEntries(names.map((name) => [name, { $sum: `$${sums[name]}` }]))
          }
        },
        { $sort: { _id: 1 } }
      ])
      .toArray()
      .catch(storeError)
    return rows.map((row: any) => ({
      group: row._id ?? null,
      count: row.count,
      sums: Object.fromEntries(names.map((name) => [name, row[name] ?? 0]))
    }))
  }
  const topLevel = [
    ...new Set([groupBy, ...names.map((name) => sums[name])].map((field) => field.split('.')[0]))
  ]
  const docs: any[] = await service
    .getOptions(params)
    .Model.findAsync(query, Object.fromEntries(topLevel.map((field) => [field, 1])))
    .catch(storeError)
  const read = (doc: any, field: string) =>
    field
      .split('.')
      .reduce((value, key) => (value && typeof value === 'object' ? value[key] : undefined), doc)
  const groups = new Map<string, GroupSums>()
  for (const doc of docs) {
    const group = read(doc, groupBy) ?? null
    const key = JSON.stringify(group)
    let entry = groups.get(key)
    if (!entry)
      groups.set(key, (entry = { group, count: 0, sums: Object.fromEntries(names.map((name) => [name, 0])) }))
    entry.count++
    for (const name of names) {
      const value = read(doc, sums[name])
      if (typeof value === 'number' && Number.isFinite(value)) entry.sums[name] += value
    }
  }
  return [...groups.values()].sort((a, b) => String(a.group).localeCompare(String(b.group)))
}
