// The store of one collection, the same on both engines: it holds the engine's adapter (a member, not a base
// class) and adds what every store call does — public ids (`id`; `_id` never leaves the store), engine errors
// mapped (src/store/errors.ts), each operation's latency recorded, the journal of an append-only collection, and
// `afterWrite` called with the documents written before a write resolves.
import { MethodNotAllowed } from '@feathersjs/errors'
import type { Id, NullableId, Paginated } from '@feathersjs/feathers'
import type { PaginationOptions } from '@feathersjs/adapter-commons'
import {
  newId,
  type ByIdResult,
  type GroupSums,
  type InternalParams,
  type Store,
  type StoreDoc,
  type StoreOptions,
  type StoreParams
} from './contract'
import type { EngineAdapter, Journal } from './engines/engine'
import { storeError } from './errors'

/** Starts timing one store operation; the returned function ends it. */
export type OperationTimer = (operation: string) => () => void

/** What a store adds to its engine's adapter. */
export interface StoreSettings {
  timer?: OperationTimer
  afterWrite?: StoreOptions['afterWrite']
  journal?: Journal
}

const isDoc = (value: unknown): value is StoreDoc =>
  !!value && typeof value === 'object' && !Array.isArray(value)

const strip = <T>(doc: T): T => {
  if (!isDoc(doc)) return doc
  const { _id, ...rest } = doc
  return rest as T
}

const stripAll = <T>(result: T): T => {
  if (Array.isArray(result)) return result.map(strip) as T
  if (isDoc(result) && Array.isArray(result.data) && 'total' in result)
    return { ...result, data: result.data.map(strip) } as T
  return strip(result)
}

// A write never changes a document's ids.
const withoutIdChange = (data: StoreDoc): StoreDoc => {
  if (!isDoc(data)) return data
  const { id: _i, _id, ...rest } = data
  return rest
}

const writtenDocs = (result: unknown): StoreDoc[] =>
  Array.isArray(result) ? result : isDoc(result) ? [result] : []

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

export class EngineStore<
  Result = StoreDoc,
  Data = StoreDoc,
  Patch = StoreDoc,
  Query = StoreDoc
> implements Store<Result, Data, Patch, Query> {
  populatable?: boolean
  bodyOperators?: string[]
  eventMethods?: string[]
  loadDeferred?: () => Promise<void>

  constructor(
    /** The engine's adapter of this collection. */
    readonly engine: EngineAdapter,
    private readonly settings: StoreSettings = {}
  ) {}

  get id(): string {
    return this.engine.options.id ?? 'id'
  }
  get options() {
    return this.engine.options
  }
  get events(): string[] {
    return this.engine.options.events ?? []
  }

  journalFile() {
    const journal = this.settings.journal
    return journal ? { filename: journal.filename, sync: journal.mode } : undefined
  }

  // (a journal collection's appends reach memory only at its next read: its counter lags the file)
  version() {
    return this.settings.journal ? undefined : this.engine.version()
  }

  private timed<T>(operation: string, run: () => Promise<T>) {
    return timed(this.settings.timer, operation, run)
  }

  private async written<T>(result: T): Promise<T> {
    const afterWrite = this.settings.afterWrite
    if (afterWrite) await afterWrite(writtenDocs(result))
    return result
  }

  // Public methods: the query prepared as the engine's own service prepares it, then the internal method.
  async find(params?: StoreParams<Query> & { paginate?: PaginationOptions }): Promise<Paginated<Result>>
  async find(params?: StoreParams<Query> & { paginate: false }): Promise<Result[]>
  async find(params?: StoreParams<Query>): Promise<Paginated<Result> | Result[]>
  async find(params?: StoreParams<Query>): Promise<Paginated<Result> | Result[]> {
    return this._find(await this.engine.publicParams('find', params))
  }
  async get(id: Id, params?: StoreParams<Query>): Promise<Result> {
    return this._get(id, await this.engine.publicParams('get', params))
  }
  async create(data: Data, params?: StoreParams<Query>): Promise<Result> {
    this.engine.checkCreate(data, params)
    return this._create(data as StoreDoc, params as InternalParams)
  }
  async update(id: Id, data: Data, params?: StoreParams<Query>): Promise<Result> {
    return this._update(id, data as StoreDoc, await this.engine.publicParams('update', params))
  }
  async patch(id: NullableId, data: Patch, params?: StoreParams<Query>): Promise<Result> {
    const internal = await this.engine.publicParams('patch', params)
    return (await this._patch(id, data as StoreDoc, internal)) as Result
  }
  async remove(id: NullableId, params?: StoreParams<Query>): Promise<Result> {
    const internal = await this.engine.publicParams('remove', params)
    return (await this._remove(id, internal)) as Result
  }

  async _scan(fields: string[], visit: (doc: StoreDoc) => void): Promise<void> {
    await this.settings.journal?.catchUp()
    await this.timed('scan', () => this.engine.scanAll(fields, visit))
  }

  async _sumByGroup(
    params: InternalParams,
    groupBy: string,
    sums: Record<string, string>
  ): Promise<GroupSums[]> {
    return this.engine.sumByGroup(params, groupBy, sums).catch(storeError)
  }

  async _find(params?: InternalParams & { paginate?: PaginationOptions }): Promise<Paginated<Result>>
  async _find(params?: InternalParams & { paginate: false }): Promise<Result[]>
  async _find(params?: InternalParams): Promise<Paginated<Result> | Result[]>
  async _find(params?: InternalParams): Promise<Paginated<Result> | Result[]> {
    await this.settings.journal?.catchUp()
    return this.timed('find', async () =>
      stripAll(await this.engine._find(params).catch(storeError))
    ) as Promise<Paginated<Result> | Result[]>
  }

  async _get(id: Id, params?: InternalParams): Promise<Result> {
    await this.settings.journal?.catchUp()
    return this.timed('get', async () =>
      strip(await this.engine._get(id, params).catch(storeError))
    ) as Promise<Result>
  }

  async _create(data: StoreDoc[], params?: InternalParams): Promise<Result[]>
  async _create(data: StoreDoc, params?: InternalParams): Promise<Result>
  async _create(data: StoreDoc | StoreDoc[], params?: InternalParams): Promise<Result | Result[]> {
    const records = Array.isArray(data)
      ? data.map((item) => ({ ...withoutIdChange(item), id: newId() }))
      : { ...withoutIdChange(data), id: newId() }
    const journal = this.settings.journal
    if (journal) {
      // Journal-first: the line (with NeDB's `_id`, the same as `id`) is the write; the copy queries use catches up
      // at the next read.
      const docs = writtenDocs(records)
      return this.timed('create', async () => {
        await journal.append(docs.map((doc) => ({ ...doc, _id: doc.id })))
        return this.written(records)
      }) as Promise<Result | Result[]>
    }
    return this.timed('create', async () =>
      this.written(stripAll(await this.engine._create(records, params).catch(storeError)))
    ) as Promise<Result | Result[]>
  }

  async _update(id: Id, data: StoreDoc, params?: InternalParams): Promise<Result> {
    if (this.settings.journal) throw new MethodNotAllowed('An append-only log is not updated')
    return this.timed('update', async () =>
      this.written(strip(await this.engine._update(id, withoutIdChange(data), params).catch(storeError)))
    ) as Promise<Result>
  }

  async _patch<I extends NullableId>(
    id: I,
    data: StoreDoc,
    params?: InternalParams
  ): Promise<ByIdResult<I, Result>> {
    if (this.settings.journal) throw new MethodNotAllowed('An append-only log is not patched')
    return this.timed('patch', async () =>
      this.written(stripAll(await this.engine._patch(id, withoutIdChange(data), params).catch(storeError)))
    ) as Promise<ByIdResult<I, Result>>
  }

  async _remove<I extends NullableId>(id: I, params?: InternalParams): Promise<ByIdResult<I, Result>> {
    const journal = this.settings.journal
    if (journal) {
      // Removed from the caught-up copy, then the file is rewritten from it (src/store/engines/nedb/journal.ts).
      await journal.catchUp()
      return this.timed('remove', async () => {
        const removed = stripAll(await this.engine._remove(id, params).catch(storeError))
        if (writtenDocs(removed).length > 0) await journal.rewrite()
        return this.written(removed)
      }) as Promise<ByIdResult<I, Result>>
    }
    return this.timed('remove', async () =>
      this.written(stripAll(await this.engine._remove(id, params).catch(storeError)))
    ) as Promise<ByIdResult<I, Result>>
  }

  filterQuery(id: NullableId, params: InternalParams) {
    return this.engine.filterQuery(id, params)
  }
  getOptions(params: InternalParams) {
    return this.engine.getOptions(params)
  }
}
