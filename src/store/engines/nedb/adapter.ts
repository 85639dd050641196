// One collection of the embedded engine through feathers-nedb's `NeDBService` (a member): its internal methods,
// plus a count that loads nothing, NotFound for a missing document whatever the projection, a scan of the
// documents in memory and sums per group over the matching documents.
import { NotFound } from '@feathersjs/errors'
import type { Id, NullableId, Paginated } from '@feathersjs/feathers'
import { NeDBService } from 'feathers-nedb'
import type { NeDBAdapterParams } from 'feathers-nedb/lib/adapter'
import type { GroupSums, InternalParams, StoreDoc, StoreParams } from '../../contract'
import type { AdapterSettings, EngineAdapter, PublicMethod } from '../engine'
import { groupedFields, sumDocsByGroup } from '../../aggregate'
import type { IndexedNeDB } from './candidates'

type Params = NeDBAdapterParams<StoreDoc>

/** The document with NeDB's `_id` set to its `id` (a string id given by the store), unless it has one. */
const withNedbId = (doc: StoreDoc): StoreDoc =>
  doc._id === undefined && typeof doc.id === 'string' ? { _id: doc.id, ...doc } : doc

export class NedbAdapter implements EngineAdapter {
  /** feathers-nedb's adapter of the collection. */
  readonly service: NeDBService<StoreDoc, StoreDoc, Params, StoreDoc>

  constructor(
    settings: AdapterSettings,
    readonly datastore: IndexedNeDB
  ) {
    this.service = new NeDBService<StoreDoc, StoreDoc, Params, StoreDoc>({ ...settings, Model: datastore })
  }

  get options() {
    return this.service.options
  }

  // NeDBService's public methods sanitize the query in the caller's params (patch and remove without `$limit`).
  async publicParams(
    method: PublicMethod,
    params?: StoreParams<unknown>
  ): Promise<InternalParams | undefined> {
    if (!params) return undefined
    const internal = params as InternalParams
    const query = await this.service.sanitizeQuery(internal)
    if (method === 'patch' || method === 'remove') {
      const { $limit: _limit, ...rest } = query
      internal.query = rest
    } else internal.query = query
    return internal
  }

  // NeDBService's create leaves the check to `_create` (a journal collection appends without it).
  checkCreate() {}

  filterQuery(id: NullableId, params: InternalParams) {
    return this.service.filterQuery(id, params)
  }

  getOptions(params: InternalParams) {
    return this.service.getOptions(params)
  }

  // feathers-nedb answers a paginated `$limit: 0` (a count) by also loading and copying every matching document;
  // here it only counts.
  async _find(params: InternalParams = {}): Promise<Paginated<StoreDoc> | StoreDoc[]> {
    const paginate = params.paginate !== undefined ? params.paginate : this.service.options.paginate
    if (paginate && paginate.default && params.query?.$limit === 0) {
      const { query, filters } = this.service.filterQuery(null, params)
      const total = await this.service.getOptions(params).Model.countAsync(query)
      return { total, limit: 0, skip: filters.$skip ?? 0, data: [] }
    }
    return this.service._find(params)
  }

  // (with `$select`, NeDBService answers a missing document with null)
  async _get(id: Id, params?: InternalParams): Promise<StoreDoc> {
    const found = await this.service._get(id, params)
    if (!found) throw new NotFound(`No record found for id '${id}'`)
    return found
  }

  // NeDB's `_id` is the document's `id` (unique, as the journal collections already write it): NeDB then draws no
  // random `_id` of its own and looks it up in its `_id` index, a sixth of an insert's work.
  _create(data: StoreDoc | StoreDoc[], params?: InternalParams): Promise<StoreDoc | StoreDoc[]> {
    return this.service._create(Array.isArray(data) ? data.map(withNedbId) : withNedbId(data), params)
  }

  _update(id: Id, data: StoreDoc, params?: InternalParams): Promise<StoreDoc> {
    return this.service._update(id, data, params)
  }

  _patch(id: NullableId, data: StoreDoc, params?: InternalParams): Promise<StoreDoc | StoreDoc[]> {
    return this.service._patch(id, data, params)
  }

  // (by id with `$select`, NeDBService finds nothing as null and removes nothing: a missing document)
  async _remove(id: NullableId, params?: InternalParams): Promise<StoreDoc | StoreDoc[]> {
    const removed: StoreDoc | StoreDoc[] | null = await this.service._remove(id, params)
    if (!removed) throw new NotFound(`No record found for id '${id}'`)
    return removed
  }

  // One process owns the embedded files (the data lock), so the datastore's counter is every change there is.
  version(): number {
    return this.datastore.version
  }

  // The documents held in memory, as they are (no copy, every field).
  async scanAll(_fields: string[], visit: (doc: StoreDoc) => void) {
    for (const doc of this.datastore.getAllData()) visit(doc)
  }

  // The matching documents with only the grouped and summed fields, summed here.
  async sumByGroup(
    params: InternalParams,
    groupBy: string,
    sums: Record<string, string>
  ): Promise<GroupSums[]> {
    const { query } = this.service.filterQuery(null, { ...params, paginate: false })
    const projection = Object.fromEntries(groupedFields(groupBy, sums).map((field) => [field, 1]))
    const docs: StoreDoc[] = await this.service.getOptions(params).Model.findAsync(query, projection)
    return sumDocsByGroup(docs, groupBy, sums)
  }
}
