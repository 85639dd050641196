// The MongoDB engine (MONGODB_URL): the client and its start-up errors, and each collection through
// @feathersjs/mongodb's `MongoDBService` (a member) with guarded multi writes, a projected scan and `$group` sums.
import { MongoClient, type Collection, type Db } from 'mongodb'
import { MongoDBService, type MongoDBAdapterParams } from '@feathersjs/mongodb'
import { MethodNotAllowed } from '@feathersjs/errors'
import type { Id, NullableId, Paginated } from '@feathersjs/feathers'
import { StartupError, reasonOf, shownUrl } from '../../startup-error'
import type { GroupSums, InternalParams, StoreDoc, StoreParams } from '../contract'
import { groupPipeline, pipelineRows } from '../aggregate'
import type { AdapterSettings, Engine, EngineAdapter, PublicMethod } from './engine'

type Params = MongoDBAdapterParams<StoreDoc>

export class MongoAdapter implements EngineAdapter {
  /** @feathersjs/mongodb's adapter of the collection. */
  readonly service: MongoDBService<StoreDoc, StoreDoc, Params, StoreDoc>

  constructor(settings: AdapterSettings, collection: Promise<Collection>) {
    this.service = new MongoDBService<StoreDoc, StoreDoc, Params, StoreDoc>({
      ...settings,
      Model: collection,
      disableObjectify: true
    })
  }

  get options() {
    return this.service.options
  }

  // MongoDBService's public methods pass a copy of the params with the sanitized query (patch and remove without
  // `$limit`).
  async publicParams(method: PublicMethod, params?: StoreParams<unknown>): Promise<InternalParams> {
    const internal = params as InternalParams | undefined
    const query = await this.service.sanitizeQuery(internal)
    if (method === 'patch' || method === 'remove') {
      const { $limit: _limit, ...rest } = query
      return { ...internal, query: rest }
    }
    return { ...internal, query }
  }

  checkCreate(data: unknown, params?: StoreParams<unknown>) {
    if (Array.isArray(data) && !this.service.allowsMulti('create', params as InternalParams | undefined))
      throw new MethodNotAllowed('Can not create multiple entries')
  }

  filterQuery(id: NullableId, params: InternalParams) {
    return this.service.filterQuery(id, params)
  }

  getOptions(params: InternalParams) {
    return this.service.getOptions(params)
  }

  _find(params?: InternalParams): Promise<Paginated<StoreDoc> | StoreDoc[]> {
    return this.service._find(params)
  }

  _get(id: Id, params?: InternalParams): Promise<StoreDoc> {
    return this.service._get(id, params)
  }

  _create(data: StoreDoc | StoreDoc[], params?: InternalParams): Promise<StoreDoc | StoreDoc[]> {
    return this.service._create(data, params)
  }

  _update(id: Id, data: StoreDoc, params?: InternalParams): Promise<StoreDoc> {
    return this.service._update(id, data, params)
  }

  _patch(id: NullableId, data: StoreDoc, params: InternalParams = {}): Promise<StoreDoc | StoreDoc[]> {
    if (id !== null) return this.service._patch(id, data, params)
    return this.multi('patch', params, (one, oneParams) => this.service._patch(one, data, oneParams))
  }

  _remove(id: NullableId, params: InternalParams = {}): Promise<StoreDoc | StoreDoc[]> {
    if (id !== null) return this.service._remove(id, params)
    return this.multi('remove', params, (one, oneParams) => this.service._remove(one, oneParams))
  }

  // MongoDBService's multi patch/remove find the ids first and then write `{ id: { $in: ids } }`, dropping the
  // query's conditions at write time; code here relies on those conditions as concurrency guards (as the embedded
  // engine's single `update(query, { multi })` honours them). So each document is written with
  // `findOneAndUpdate`/`findOneAndDelete` under the full query, and only documents actually written are returned.
  private async multi(
    method: 'patch' | 'remove',
    params: InternalParams,
    write: (id: Id, params: InternalParams) => Promise<StoreDoc>
  ): Promise<StoreDoc[]> {
    if (!this.service.allowsMulti(method, params))
      throw new MethodNotAllowed(`Can not ${method} multiple entries`)
    const { $select, $sort: _sort, $limit: _limit, $skip: _skip, ...conditions } = params.query ?? {}
    const page = await this.service._find({
      ...params,
      paginate: false,
      query: { ...params.query, $select: ['id'] }
    })
    const found = Array.isArray(page) ? page : page.data
    const written: StoreDoc[] = []
    for (const { id } of found) {
      const one = await write(id, {
        ...params,
        query: { ...conditions, ...($select ? { $select } : {}) }
      }).catch((error: { code?: unknown }) => {
        if (error?.code === 404) return null
        throw error
      })
      if (one) written.push(one)
    }
    return written
  }

  // Other instances write the same collection: no counter here says everything that changed it.
  version(): undefined {
    return undefined
  }

  // One cursor over the collection with only `fields`.
  async scanAll(fields: string[], visit: (doc: StoreDoc) => void) {
    const projection: Record<string, 0 | 1> = { _id: 0 }
    for (const field of fields) projection[field] = 1
    const collection = await this.service.getModel({})
    for await (const doc of collection.find({}, { projection, batchSize: 5000 })) visit(doc)
  }

  // A `$group` aggregation of the matching documents.
  async sumByGroup(
    params: InternalParams,
    groupBy: string,
    sums: Record<string, string>
  ): Promise<GroupSums[]> {
    const { query } = this.service.filterQuery(null, { ...params, paginate: false })
    const collection = await this.service.getModel(params)
    const rows = await collection.aggregate<StoreDoc>(groupPipeline(query, groupBy, sums)).toArray()
    return pipelineRows(rows, sums)
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

const mongoStartupError = (url: string, timeoutMs: number, error: unknown) => {
  const where = `MongoDB at MONGODB_URL ${shownUrl(url)}`
  const reason = reasonOf(error).replaceAll(url, '…')
  return (error as { name?: unknown } | null)?.name === 'MongoServerSelectionError'
    ? new StartupError(
        `${where} could not be reached within ${timeoutMs} ms (${reason}); start MongoDB or set MONGODB_URL to a server this host can reach (MONGODB_CONNECT_TIMEOUT_MS sets the wait)`,
        { cause: error }
      )
    : new StartupError(
        `${where} refused the connection (${reason}); check the user, password and database in MONGODB_URL`,
        { cause: error }
      )
}

export const mongoEngine = (url: string, timeoutMs: number): Engine => {
  const client = mongoClient(url, timeoutMs)
  const connected = client
    .connect()
    .then(() => client.db())
    .catch((error) => {
      throw mongoStartupError(url, timeoutMs, error)
    })
  // (start-up reports it once, through storeReady)
  connected.catch(() => undefined)
  const collection = (name: string) => connected.then((db: Db) => db.collection(name))
  return {
    kind: 'mongodb',
    adapter(name: string, settings: AdapterSettings) {
      const adapter: EngineAdapter = new MongoAdapter(settings, collection(name))
      return { adapter }
    },
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
