// What the store offers, whatever the engine: the one `Store` interface every service's adapter implements, the
// options a service declares its collection with, and the shapes of stored documents and store calls.
import { ObjectId } from 'mongodb'
import type { Id, NullableId, Paginated } from '@feathersjs/feathers'
import type {
  AdapterParams,
  AdapterQuery,
  AdapterServiceOptions,
  PaginationOptions
} from '@feathersjs/adapter-commons'
import type { StoreSync } from './sync'
import type { StoreDoc } from '../schema/resolvers'

export interface IndexSpec {
  fields: Record<string, 1 | -1>
  unique?: boolean
  sparse?: boolean
}

/** A document as an internal write hands it to the store, and a stored one: defined once, in the base layer. */
export type { StoreDoc, Stored } from '../schema/resolvers'

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
  afterWrite?(docs: StoreDoc[]): Promise<void>
  /** Pagination; defaults to the app's `paginate` setting. */
  paginate?: false | { default: number; max: number }
  /**
   * An append-only log (create and multi remove only). On the embedded engine a create is one line added to the
   * data file and nothing else; queries first bring the in-memory copy up to date from the file, in one batch
   * (src/store/engines/nedb/journal.ts). Unique indexes are not checked at create there: the log has one writer. On
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

/** Params of an internal (`_`) call: a query of the portable subset, operators included. */
export type InternalParams = AdapterParams<StoreDoc>

/**
 * The document type of a store whose caller names none: a path known only at run time, domain code reading
 * bookkeeping fields beyond the schemas. (any: those callers read and pass on fields without narrowing)
 */
export type UntypedDoc = any

/** A call by id answers one document; a call with a `null` id (multi) answers the list it wrote. */
export type ByIdResult<I, R> = I extends null ? R[] : R

/** A query split by the adapter into conditions and filters (`$limit`, `$sort`, `$select`, `$skip`). */
export interface FilteredQuery {
  query: StoreDoc
  filters: { $select?: string[]; $sort?: Record<string, 1 | -1>; $limit?: number; $skip?: number }
}

/** The adapter's options for one call; `Model` is the engine's collection. */
export type AdapterOptions = AdapterServiceOptions & { Model?: unknown }

/** One row of `_sumByGroup`. */
export interface GroupSums {
  /** The value of the group field (null when absent). */
  group: unknown
  count: number
  /** Per named sum: the total of its numeric field. */
  sums: Record<string, number>
}

/**
 * The store every service's adapter is, on both engines, typed by the service's schemas: `Result` (the stored
 * document), `Data` (a create body), `Patch` (a patch body) and `Query` (what a find may ask). The `_` methods are
 * the internal ones (no hooks, no events) domain functions write with; they take whole documents and update
 * operators, hence `StoreDoc`.
 */
export interface Store<Result = UntypedDoc, Data = UntypedDoc, Patch = UntypedDoc, Query = StoreDoc> {
  readonly id: string
  readonly options: AdapterOptions
  /** Custom events of the service (Feathers reads them when the service is registered). */
  readonly events: string[]
  /** `$populate` may name this service (src/hooks/populate.ts). */
  populatable?: boolean
  /** Update operators clients may send in a patch body (src/hooks/reject-unsafe-keys.ts). */
  bodyOperators?: string[]
  /** The methods whose events webhooks may subscribe to, when not the exposed ones (the webhooks service). */
  eventMethods?: string[]
  /**
   * A journal collection on the embedded engine: its data file and sync mode, for a writer that appends the lines
   * itself (the audit writer thread; the queries catch up from the file as from the store's own appends). Else
   * undefined.
   */
  journalFile(): { filename: string; sync: StoreSync } | undefined
  /**
   * The collection's change counter where this process alone writes it (the embedded engine): every insert,
   * update, remove and load moves it before the write is answered, so state derived from the collection and kept
   * with the counter it was computed at (read before the computation) is exact while the counter has not moved.
   * Undefined where other writers exist (MongoDB, shared by instances) and on a journal collection: read each time.
   */
  version(): number | undefined
  /** With the `deferLoad` option: opens the collection (once; later calls share the first). */
  loadDeferred?: () => Promise<void>
  find(params?: StoreParams<Query> & { paginate: false }): Promise<Result[]>
  find(params?: StoreParams<Query> & { paginate?: PaginationOptions }): Promise<Paginated<Result>>
  find(params?: StoreParams<Query>): Promise<Paginated<Result> | Result[]>
  get(id: Id, params?: StoreParams<Query>): Promise<Result>
  // The public writes act on one document (clients' multi writes are refused); multi writes use the `_` methods.
  create(data: Data, params?: StoreParams<Query>): Promise<Result>
  update(id: Id, data: Data, params?: StoreParams<Query>): Promise<Result>
  patch(id: NullableId, data: Patch, params?: StoreParams<Query>): Promise<Result>
  remove(id: NullableId, params?: StoreParams<Query>): Promise<Result>
  _find(params?: InternalParams & { paginate: false }): Promise<Result[]>
  _find(params?: InternalParams & { paginate?: PaginationOptions }): Promise<Paginated<Result>>
  _find(params?: InternalParams): Promise<Paginated<Result> | Result[]>
  _get(id: Id, params?: InternalParams): Promise<Result>
  // (the list first: a list is also a StoreDoc, so the single-document overload would take it)
  _create(data: StoreDoc[], params?: InternalParams): Promise<Result[]>
  _create(data: StoreDoc, params?: InternalParams): Promise<Result>
  _update(id: Id, data: StoreDoc, params?: InternalParams): Promise<Result>
  _patch<I extends NullableId>(id: I, data: StoreDoc, params?: InternalParams): Promise<ByIdResult<I, Result>>
  _remove<I extends NullableId>(id: I, params?: InternalParams): Promise<ByIdResult<I, Result>>
  /** The adapter's split of a query into conditions and filters (`$limit`, `$sort`, …). */
  filterQuery(id: NullableId, params: InternalParams): FilteredQuery
  /** The adapter's options for one call (the engine's collection is `Model`). */
  getOptions(params: InternalParams): AdapterOptions
  /**
   * Visits every stored document with at least `fields` (no hooks, no copies where the engine holds them in memory:
   * `visit` must neither change nor keep the object it is given). For building an in-process index from a whole
   * collection without a copy of it.
   */
  _scan(fields: string[], visit: (doc: StoreDoc) => void): Promise<void>
  /**
   * Sums numeric fields per value of `groupBy` over the documents `params.query` selects — computed in the store,
   * never by a client-facing find: a `$group` aggregation on MongoDB; on the embedded engine a scan of the matching
   * documents reading only the grouped and summed fields. `sums` maps a result name to a field path (dot notation
   * for nested fields). `$limit`, `$skip`, `$sort` and `$select` are ignored.
   */
  _sumByGroup(params: InternalParams, groupBy: string, sums: Record<string, string>): Promise<GroupSums[]>
}

/** The former name of `Store`, kept while the rest of src moves over. */
export type StoreService<
  Result = UntypedDoc,
  Data = UntypedDoc,
  Patch = UntypedDoc,
  Query = StoreDoc
> = Store<Result, Data, Patch, Query>

/** A new public id: 24 hex characters, time-ordered, the same shape on both engines. */
export const newId = () => new ObjectId().toHexString()
