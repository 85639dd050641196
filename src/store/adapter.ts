// The store's typed adapter as a base class: a service class extends it (generic over Result/Data/Patch/Query) and
// holds its own create/patch/remove, calling domain functions; everything else is the store built on the engine
// chosen at start-up (MongoDB or the embedded engine), held as `store`, to which each method hands over.
import type { PaginationOptions } from '@feathersjs/adapter-commons'
import type { Id, NullableId, Paginated } from '@feathersjs/feathers'
import type { Application } from '../declarations'
import type {
  ByIdResult,
  GroupSums,
  InternalParams,
  Store,
  StoreDoc,
  StoreOptions,
  StoreParams,
  UntypedDoc
} from './contract'
import { createStore } from './registry'

export class StoreAdapter<
  Result = UntypedDoc,
  Data = UntypedDoc,
  Patch = UntypedDoc,
  Query = StoreDoc
> implements Store<Result, Data, Patch, Query> {
  /** The store this service reads and writes through. */
  readonly store: Store<Result, Data, Patch, Query>
  populatable?: boolean
  bodyOperators?: string[]
  eventMethods?: string[]

  constructor(
    readonly app: Application,
    options: StoreOptions
  ) {
    this.store = createStore<Result, Data, Patch, Query>(app, options)
  }

  get id() {
    return this.store.id
  }
  get options() {
    return this.store.options
  }
  get events() {
    return this.store.events
  }
  get loadDeferred() {
    return this.store.loadDeferred
  }
  journalFile() {
    return this.store.journalFile()
  }
  version() {
    return this.store.version()
  }

  find(params?: StoreParams<Query> & { paginate: false }): Promise<Result[]>
  find(params?: StoreParams<Query> & { paginate?: PaginationOptions }): Promise<Paginated<Result>>
  find(params?: StoreParams<Query>): Promise<Paginated<Result> | Result[]>
  find(params?: StoreParams<Query>): Promise<Paginated<Result> | Result[]> {
    return this.store.find(params)
  }
  get(id: Id, params?: StoreParams<Query>): Promise<Result> {
    return this.store.get(id, params)
  }
  create(data: Data, params?: StoreParams<Query>): Promise<Result> {
    return this.store.create(data, params)
  }
  update(id: Id, data: Data, params?: StoreParams<Query>): Promise<Result> {
    return this.store.update(id, data, params)
  }
  patch(id: NullableId, data: Patch, params?: StoreParams<Query>): Promise<Result> {
    return this.store.patch(id, data, params)
  }
  remove(id: NullableId, params?: StoreParams<Query>): Promise<Result> {
    return this.store.remove(id, params)
  }
  _find(params?: InternalParams & { paginate: false }): Promise<Result[]>
  _find(params?: InternalParams & { paginate?: PaginationOptions }): Promise<Paginated<Result>>
  _find(params?: InternalParams): Promise<Paginated<Result> | Result[]>
  _find(params?: InternalParams): Promise<Paginated<Result> | Result[]> {
    return this.store._find(params)
  }
  _get(id: Id, params?: InternalParams): Promise<Result> {
    return this.store._get(id, params)
  }
  _create(data: StoreDoc, params?: InternalParams): Promise<Result>
  _create(data: StoreDoc[], params?: InternalParams): Promise<Result[]>
  _create(data: StoreDoc | StoreDoc[], params?: InternalParams): Promise<Result | Result[]> {
    return Array.isArray(data) ? this.store._create(data, params) : this.store._create(data, params)
  }
  _update(id: Id, data: StoreDoc, params?: InternalParams): Promise<Result> {
    return this.store._update(id, data, params)
  }
  _patch<I extends NullableId>(
    id: I,
    data: StoreDoc,
    params?: InternalParams
  ): Promise<ByIdResult<I, Result>> {
    return this.store._patch(id, data, params)
  }
  _remove<I extends NullableId>(id: I, params?: InternalParams): Promise<ByIdResult<I, Result>> {
    return this.store._remove(id, params)
  }
  filterQuery(id: NullableId, params: InternalParams) {
    return this.store.filterQuery(id, params)
  }
  getOptions(params: InternalParams) {
    return this.store.getOptions(params)
  }
  _scan(fields: string[], visit: (doc: StoreDoc) => void): Promise<void> {
    return this.store._scan(fields, visit)
  }
  _sumByGroup(params: InternalParams, groupBy: string, sums: Record<string, string>): Promise<GroupSums[]> {
    return this.store._sumByGroup(params, groupBy, sums)
  }
}
