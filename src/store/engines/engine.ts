// What the store needs of an engine: the collections (each reached through the engine's Feathers adapter, typed
// here), the indexes, a readiness ping and closing.
import type { Id, NullableId, Paginated } from '@feathersjs/feathers'
import type {
  AdapterOptions,
  FilteredQuery,
  GroupSums,
  IndexSpec,
  InternalParams,
  StoreDoc,
  StoreParams
} from '../contract'
import type { StoreSync } from '../sync'

/** A public method whose params the engine prepares before handing over to the internal one. */
export type PublicMethod = 'find' | 'get' | 'update' | 'patch' | 'remove'

/** The adapter's options as the store builds them for an engine (its `Model` is set by the engine). */
export type AdapterSettings = Omit<AdapterOptions, 'Model'> & { id: string }

/**
 * One collection seen through the engine's Feathers adapter (feathers-nedb's `NeDBService`, @feathersjs/mongodb's
 * `MongoDBService`, held as a member): the adapter's internal methods with the engine's own corrections (the
 * embedded engine's count, MongoDB's guarded multi writes), untouched documents (`_id` included) and raw errors. A call by id that finds nothing throws NotFound.
 */
export interface EngineAdapter {
  readonly options: AdapterOptions
  /** The params a public method hands to its internal one, prepared as the engine's own service does. */
  publicParams(method: PublicMethod, params?: StoreParams<unknown>): Promise<InternalParams | undefined>
  /** Refuses a multi create where the engine's own public create does. */
  checkCreate(data: unknown, params?: StoreParams<unknown>): void
  filterQuery(id: NullableId, params: InternalParams): FilteredQuery
  getOptions(params: InternalParams): AdapterOptions
  _find(params?: InternalParams): Promise<Paginated<StoreDoc> | StoreDoc[]>
  _get(id: Id, params?: InternalParams): Promise<StoreDoc>
  _create(data: StoreDoc | StoreDoc[], params?: InternalParams): Promise<StoreDoc | StoreDoc[]>
  _update(id: Id, data: StoreDoc, params?: InternalParams): Promise<StoreDoc>
  _patch(id: NullableId, data: StoreDoc, params?: InternalParams): Promise<StoreDoc | StoreDoc[]>
  _remove(id: NullableId, params?: InternalParams): Promise<StoreDoc | StoreDoc[]>
  /** The collection's change counter where this process alone writes it (see `Store.version`), else undefined. */
  version(): number | undefined
  /** Visits every document with at least `fields` (see `Store._scan`). */
  scanAll(fields: string[], visit: (doc: StoreDoc) => void): Promise<void>
  /** See `Store._sumByGroup`. */
  sumByGroup(params: InternalParams, groupBy: string, sums: Record<string, string>): Promise<GroupSums[]>
}

/** A journal-first collection's log (the embedded engine's; see src/store/engines/nedb/journal.ts). */
export interface Journal {
  readonly filename: string
  readonly mode: StoreSync
  append(docs: StoreDoc[]): Promise<void>
  catchUp(): Promise<void>
  rewrite(): Promise<void>
}

export interface Engine {
  kind: 'mongodb' | 'nedb'
  /** The adapter of collection `name` (a journal collection's when `journal`). */
  adapter(
    name: string,
    settings: AdapterSettings,
    journal: boolean
  ): { adapter: EngineAdapter; journal?: Journal }
  ensureIndexes(name: string, indexes: IndexSpec[]): Promise<void>
  /** Resolves when the store answers (readiness); rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}
