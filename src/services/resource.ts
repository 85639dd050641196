// The one shape of a service class: `class XService extends ResourceService<Doc, Data, Patch, Query>`, holding the
// service's own create/update/patch/remove (what a POST, PUT, PATCH or DELETE does, calling domain functions).
// Every write goes through `this.write(method, id, params, run)`, which announces it on the app's event bus:
// `record.changing` before, then `record.changed` with what was written (or `record.failed`). Webhook recording,
// directory upkeep and the audit of privilege changes subscribe to those, so they see every write of every
// service, external or internal, without per-service code. An override of a write method keeps that shape:
// `return this.write('patch', id, params, () => finalizeInvoice(this.deps, ...))`. Reads hand over to the store.
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
    return this.write('create', null, params, () => this.store.create(data, params), data)
  }

  async update(id: Id, data: Data, params?: StoreParams<Query>): Promise<Result> {
    return this.write('update', id, params, () => this.store.update(id, data, params), data)
  }

  async patch(id: NullableId, data: Patch, params?: StoreParams<Query>): Promise<Result> {
    return this.write('patch', id, params, () => this.store.patch(id, data, params), data)
  }

  async remove(id: NullableId, params?: StoreParams<Query>): Promise<Result> {
    return this.write('remove', id, params, () => this.store.remove(id, params))
  }

  /**
   * The document a write by id is about: the one scopeAccess loaded under the caller's scope (`params.existing`),
   * else (an internal call) the stored one.
   */
  protected async loadExisting(id: Id, params?: Params<unknown>): Promise<Result> {
    // (cast: scopeAccess loads `existing` from this service's own store)
    return (params?.existing as Result | undefined) ?? this._get(id)
  }

  /**
   * Runs one write of this service (`run`), announced: `record.changing` before it, then `record.changed` with the
   * documents it answered (one or several), or `record.failed` when it throws (the error is rethrown). `data`, the
   * call's body, is passed on to the subscribers (a subscriber may prepare what the write will need).
   */
  protected async write<T>(
    method: ChangeMethod,
    id: NullableId,
    params: Params<unknown> | undefined,
    run: () => Promise<T>,
    data?: unknown
  ): Promise<T> {
    const { events } = this.deps
    const change = {
      path: this.path,
      method,
      id: id ?? null,
      params,
      data,
      notes: new Map<string, unknown>()
    }
    await events.emit('record.changing', change)
    let result: T
    try {
      result = await run()
    } catch (error) {
      await events.emit('record.failed', { ...change, error })
      throw error
    }
    const docs = (Array.isArray(result) ? result : [result]).filter(isDoc)
    await events.emit('record.changed', { ...change, docs })
    return result
  }
}
