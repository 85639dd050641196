// The store's typed adapter as a base class: a service class extends it (generic over Result/Data/Patch/Query) and
// holds its own create/patch/remove, calling domain functions; everything else is the engine's adapter (MongoDB or
// the embedded engine, chosen at start-up), to which each method hands over.
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../declarations'
import {
  createStore,
  type InternalParams,
  type StoreDoc,
  type StoreOptions,
  type StoreParams,
  type StoreService
} from './index'

// The overloads of every method come from StoreService (merged in); the bodies below only hand over.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface StoreAdapter<Result, Data, Patch, Query> extends StoreService<Result, Data, Patch, Query> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class StoreAdapter<Result = any, Data = any, Patch = any, Query = Record<string, any>> {
  /** The engine's adapter this service writes through. */
  readonly store: StoreService<Result, Data, Patch, Query>

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

  find(params?: StoreParams<Query>): Promise<any> {
    return this.store.find(params)
  }
  get(id: Id, params?: StoreParams<Query>): Promise<any> {
    return this.store.get(id, params)
  }
  create(data: Data, params?: StoreParams<Query>): Promise<any> {
    return this.store.create(data, params)
  }
  update(id: Id, data: Data, params?: StoreParams<Query>): Promise<any> {
    return this.store.update(id, data, params)
  }
  patch(id: NullableId, data: Patch, params?: StoreParams<Query>): Promise<any> {
    return this.store.patch(id, data, params)
  }
  remove(id: NullableId, params?: StoreParams<Query>): Promise<any> {
    return this.store.remove(id, params)
  }
  _find(params?: InternalParams): Promise<any> {
    return this.store._find(params)
  }
  _get(id: Id, params?: InternalParams): Promise<any> {
    return this.store._get(id, params)
  }
  _create(data: StoreDoc | StoreDoc[], params?: InternalParams): Promise<any> {
    return this.store._create(data as StoreDoc, params)
  }
  _update(id: Id, data: StoreDoc, params?: InternalParams): Promise<any> {
    return this.store._update(id, data, params)
  }
  _patch(id: NullableId, data: StoreDoc, params?: InternalParams): Promise<any> {
    return this.store._patch(id, data, params)
  }
  _remove(id: NullableId, params?: InternalParams): Promise<any> {
    return this.store._remove(id, params)
  }
  filterQuery(id: NullableId, params: InternalParams) {
    return this.store.filterQuery(id, params)
  }
  getOptions(params: InternalParams) {
    return this.store.getOptions(params)
  }
  getModel(params: InternalParams) {
    return this.store.getModel(params)
  }
}
