// The one shape of a service class: `class XService extends ResourceService<Doc, Data, Patch, Query>`, holding the
// service's own create/update/patch/remove (what a POST, PUT, PATCH or DELETE does, calling domain functions).
// Every write method ends by announcing what it wrote (`this.changed`), so webhook recording, directory upkeep
// and the audit of privilege changes — subscribers of `record.changed` — see every write of every service,
// external or internal, without per-service code. Reads hand over to the store.
import type { Id, NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import type { ChangeMethod } from '../events'
import { StoreAdapter } from '../store/adapter'
import type { StoreOptions, StoreParams } from '../store'

const isDoc = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value)

export class ResourceService<
  Result extends object = Record<string, unknown>,
  Data = Partial<Result>,
  Patch = Partial<Result>,
  Query = Record<string, unknown>
> extends StoreAdapter<Result, Data, Patch, Query> {
  constructor(
    app: Application,
    protected readonly deps: Deps,
    /** The service's path (the name its events and webhook topics carry). */
    readonly path: string,
    options: StoreOptions
  ) {
    super(app, options)
  }

  async create(data: Data, params?: StoreParams<Query>): Promise<Result> {
    return this.changed('create', await this.store.create(data, params), params)
  }

  async update(id: Id, data: Data, params?: StoreParams<Query>): Promise<Result> {
    return this.changed('update', await this.store.update(id, data, params), params)
  }

  async patch(id: NullableId, data: Patch, params?: StoreParams<Query>): Promise<Result> {
    return this.changed('patch', await this.store.patch(id, data, params), params)
  }

  async remove(id: NullableId, params?: StoreParams<Query>): Promise<Result> {
    return this.changed('remove', await this.store.remove(id, params), params)
  }

  /** Announces what a write method wrote (one document or several) as `record.changed`, and answers it. */
  protected async changed<T>(method: ChangeMethod, result: T, params?: Params<unknown>): Promise<T> {
    const docs = (Array.isArray(result) ? result : [result]).filter(isDoc)
    if (docs.length > 0)
      await this.deps.events.emit('record.changed', { path: this.path, method, docs, params })
    return result
  }
}
