// The portable query subset answers alike on both engines: the same generated documents (missing fields, nulls,
// arrays, numbers, strings, booleans, nested objects) in an embedded-engine store (with and without indexes) and a
// MongoDB-engine store, built by the store layer as the app builds them; the same generated queries through
// Feathers' `find` (`$sort`, `$limit`, `$skip` too); each answer compared with a third oracle, a small reference
// implementation of MongoDB's documented rules below. The MongoDB engine is MONGODB_URL when set, else the
// in-process emulator, whose known departures from MongoDB are listed in `emulatorGaps` (their answers are then
// checked as far as the emulator gets them right). Then the same rules over HTTP and Socket.IO: `null` in a query
// string means null where a field may be null or missing.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import fc from 'fast-check'
import { feathers } from '@feathersjs/feathers'
import NeDB from '@seald-io/nedb'
import { createStore, store, storeReady, closeStore } from '../../src/store'
import { NEDB_VERSION, installedNedbVersion } from '../../src/store/engines/nedb/match'
import { IndexedNeDB } from '../../src/store/engines/nedb/candidates'
import { startMongoEmulator, type MongoEmulator } from '../helpers/mongo-emulator'
import { http, socketClient, tempDir, testMongoUrl } from '../helpers/app'
import { fieldsOf, invoiceWithItems, startFacilityServer, type FacilityFixture } from '../helpers/billing'
import type { TestServer } from '../helpers/app'

type Doc = Record<string, any>

// ---------------------------------------------------------------------------------------------------------------
// The oracle: MongoDB's documented query and sort rules for the portable subset, written plainly.

/** BSON type order; null and missing are one type. */
const typeOrder = (v: unknown) =>
  v === undefined || v === null
    ? 1
    : typeof v === 'number'
      ? 2
      : typeof v === 'string'
        ? 3
        : Array.isArray(v)
          ? 5
          : typeof v === 'boolean'
            ? 6
            : 4
const bsonCompare = (a: any, b: any): number => {
  const ta = typeOrder(a)
  const tb = typeOrder(b)
  if (ta !== tb) return ta - tb
  if (ta === 1) return 0
  if (ta === 2 || ta === 6) return a === b ? 0 : a < b ? -1 : 1
  if (ta === 3) {
    const x = [...a].map((c) => c.codePointAt(0) as number)
    const y = [...b].map((c) => c.codePointAt(0) as number)
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i]
    return x.length - y.length
  }
  if (ta === 5) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = bsonCompare(a[i], b[i])
      if (c !== 0) return c
    }
    return a.length - b.length
  }
  // objects: field by field (type, name, value)
  const x = Object.entries(a)
  const y = Object.entries(b)
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c =
      typeOrder(x[i][1]) - typeOrder(y[i][1]) ||
      (x[i][0] < y[i][0] ? -1 : x[i][0] > y[i][0] ? 1 : 0) ||
      bsonCompare(x[i][1], y[i][1])
    if (c !== 0) return c
  }
  return x.length - y.length
}
// Equality: same type and value, objects with the same fields in the same order (JSON says exactly that here).
const same = (a: unknown, b: unknown) =>
  a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b)

/** The values a path reaches: `o.x` is o's x, or each element's x when o is an array of objects. */
const reach = (doc: Doc, path: string): unknown[] => {
  const [head, sub] = path.split('.')
  const value = doc[head]
  if (sub === undefined) return [value]
  if (Array.isArray(value))
    return value.filter((e) => e && typeof e === 'object' && !Array.isArray(e)).map((e) => e[sub])
  return [value && typeof value === 'object' ? value[sub] : undefined]
}
// `{ f: v }`: a reached value equals v, or is an array with an element equal to v; null also matches missing.
const eqRule = (values: unknown[], v: unknown) =>
  values.some((r) =>
    v === null
      ? r === undefined || r === null || (Array.isArray(r) && r.includes(null))
      : same(r, v) || (Array.isArray(r) && r.some((e) => same(e, v)))
  )
const rangeRule = (values: unknown[], op: string, bound: unknown) => {
  if (bound === null) return op === '$lte' || op === '$gte' ? eqRule(values, null) : false
  return values.some((r) =>
    (Array.isArray(r) ? r : [r]).some((c) => {
      if (c === undefined || c === null || typeOrder(c) !== typeOrder(bound)) return false
      const d = bsonCompare(c, bound)
      return op === '$lt' ? d < 0 : op === '$lte' ? d <= 0 : op === '$gt' ? d > 0 : d >= 0
    })
  )
}
const oracleMatch = (doc: Doc, query: Doc): boolean =>
  Object.entries(query).every(([key, cond]) => {
    if (key === '$and') return (cond as Doc[]).every((q) => oracleMatch(doc, q))
    if (key === '$or') return (cond as Doc[]).some((q) => oracleMatch(doc, q))
    const values = reach(doc, key)
    const isOps =
      cond &&
      typeof cond === 'object' &&
      !Array.isArray(cond) &&
      Object.keys(cond).every((k) => k.startsWith('$'))
    if (!isOps) return eqRule(values, cond)
    return Object.entries(cond).every(([op, arg]: [string, any]) => {
      if (op === '$ne') return !eqRule(values, arg)
      if (op === '$in') return arg.some((v: unknown) => eqRule(values, v))
      if (op === '$nin') return !arg.some((v: unknown) => eqRule(values, v))
      if (op === '$exists') return values.some((r) => r !== undefined) === arg
      if (op === '$size') return values.some((r) => Array.isArray(r) && r.length === arg)
      if (op === '$elemMatch')
        return values.some(
          (r) =>
            Array.isArray(r) &&
            r.some((e) => e && typeof e === 'object' && !Array.isArray(e) && oracleMatch(e, arg))
        )
      return rangeRule(values, op, arg)
    })
  })
/** A document's sort value: an array by its smallest element ascending, largest descending; [] before null. */
const EMPTY = Symbol('[]')
const sortValue = (doc: Doc, key: string, dir: number): unknown => {
  const [value] = reach(doc, key)
  if (!Array.isArray(value)) return value
  if (value.length === 0) return EMPTY
  return [...value].sort((x, y) => dir * bsonCompare(x, y))[0]
}
const sortCompare = (a: unknown, b: unknown) =>
  a === EMPTY || b === EMPTY ? (a === b ? 0 : a === EMPTY ? -1 : 1) : bsonCompare(a, b)
const oracleFind = (docs: Doc[], query: Doc): number[] => {
  const { $sort, $limit, $skip, ...conditions } = query
  let found = docs.filter((doc) => oracleMatch(doc, conditions))
  if ($sort) {
    const keys = Object.entries($sort as Record<string, number>)
    found = [...found].sort((a, b) => {
      for (const [key, dir] of keys) {
        const c = dir * sortCompare(sortValue(a, key, dir), sortValue(b, key, dir))
        if (c !== 0) return c
      }
      return 0
    })
  }
  return found.slice($skip ?? 0, $limit === undefined ? undefined : ($skip ?? 0) + $limit).map((doc) => doc.n)
}

// ---------------------------------------------------------------------------------------------------------------
// Generated documents and queries.

const scalar = fc.constantFrom<unknown>(
  -1,
  0,
  1,
  2.5,
  10,
  '',
  '0',
  '1',
  'a',
  'b',
  'B',
  'é',
  true,
  false,
  null
)
const value = fc.oneof(
  { arbitrary: scalar, weight: 4 },
  { arbitrary: fc.array(scalar, { maxLength: 3 }), weight: 2 },
  { arbitrary: fc.constant(undefined), weight: 2 }
)
const tags = fc.oneof(
  { arbitrary: fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }), weight: 4 },
  { arbitrary: fc.constantFrom(undefined, null, 'a'), weight: 1 }
)
const element = fc.record({ x: scalar, y: scalar }, { requiredKeys: [] })
const nested = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  element,
  fc.array(element, { minLength: 1, maxLength: 3 })
)
// (`c` never holds an array: a sort on it may walk its index)
const docArb = fc.record({ a: value, b: value, c: fc.oneof(scalar, fc.constant(undefined)), tags, o: nested })
const clean = (doc: Doc) => Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== undefined))

// A handful of documents for each rule's edge, then generated ones.
const edgeDocs: Doc[] = [
  {},
  { a: null, b: null, tags: null, o: null },
  // (`d`: an empty array here, numbers in a few others, missing elsewhere: an empty array is in no index node)
  { a: [], tags: [], d: [] },
  { a: [null, 1], tags: ['a', 'b'] },
  { a: [1, 5], b: 'a', tags: ['c'] },
  { a: 1, b: '1', o: { x: 1 }, d: 2 },
  { a: '1', b: 1, o: [{ x: 1 }, { y: 2 }], d: 1 },
  { a: true, b: false, o: [{ x: null }] },
  { a: [0, 'a', true], tags: ['a'], o: { y: 'a' } }
]
const documents: Doc[] = [...edgeDocs, ...fc.sample(docArb, { numRuns: 60, seed: 20240611 }).map(clean)].map(
  (doc, n) => ({ n, ...doc })
)

const fields = ['a', 'b', 'c', 'tags', 'o.x'] as const
const rangeOp = fc.constantFrom('$lt', '$lte', '$gt', '$gte')
const condition = fc.oneof(
  { arbitrary: scalar, weight: 3 },
  { arbitrary: scalar.map((v) => ({ $ne: v })), weight: 2 },
  { arbitrary: fc.array(scalar, { minLength: 1, maxLength: 3 }).map((v) => ({ $in: v })), weight: 2 },
  { arbitrary: fc.array(scalar, { minLength: 1, maxLength: 3 }).map((v) => ({ $nin: v })), weight: 2 },
  { arbitrary: fc.tuple(rangeOp, scalar).map(([op, v]) => ({ [op]: v })), weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom('$gt', '$gte'), scalar, fc.constantFrom('$lt', '$lte'), scalar)
      .map(([a, x, b, y]) => ({ [a]: x, [b]: y })),
    weight: 2
  },
  { arbitrary: fc.boolean().map((v) => ({ $exists: v })), weight: 1 },
  { arbitrary: fc.integer({ min: 0, max: 2 }).map((v) => ({ $size: v })), weight: 1 }
)
const fieldCondition = fc.oneof(
  {
    arbitrary: fc.tuple(fc.constantFrom(...fields), condition).map(([field, cond]) => ({ [field]: cond })),
    weight: 6
  },
  {
    arbitrary: fc
      .tuple(fc.constantFrom('x', 'y'), condition)
      .map(([sub, cond]) => ({ o: { $elemMatch: { [sub]: cond } } })),
    weight: 1
  }
)
const conditions = fc.oneof(
  { arbitrary: fieldCondition, weight: 4 },
  { arbitrary: fc.tuple(fieldCondition, fieldCondition).map(([x, y]) => ({ ...y, ...x })), weight: 2 },
  {
    arbitrary: fc.array(fieldCondition, { minLength: 1, maxLength: 3 }).map((parts) => ({ $or: parts })),
    weight: 2
  },
  {
    arbitrary: fc.array(fieldCondition, { minLength: 1, maxLength: 3 }).map((parts) => ({ $and: parts })),
    weight: 1
  }
)
const sortKeys = fc
  .subarray(['a', 'b', 'c', 'tags'] as const, { minLength: 1, maxLength: 2 })
  .chain((keys) =>
    fc
      .tuple(...keys.map(() => fc.constantFrom(1, -1)))
      .map((dirs) => ({ ...Object.fromEntries(keys.map((key, i) => [key, dirs[i]])), n: 1 }))
  )
const page = fc.record(
  { $sort: sortKeys, $skip: fc.integer({ min: 0, max: 5 }), $limit: fc.integer({ min: 1, max: 12 }) },
  { requiredKeys: ['$sort'] }
)
const queryArb = fc
  .tuple(conditions, fc.option(page, { nil: undefined, freq: 2 }))
  .map(([c, p]) => ({ ...c, ...(p ?? {}) }))

// ---------------------------------------------------------------------------------------------------------------
// The emulator's known departures from MongoDB (CongoDB on mingo), each with a test of whether a query meets it.

const usesNullBound = (query: unknown): boolean =>
  !!query &&
  typeof query === 'object' &&
  Object.entries(query as Doc).some(
    ([key, v]) => ((key === '$lte' || key === '$gte') && v === null) || usesNullBound(v)
  )
/** A sort key whose matched values are not all of one scalar type (mixed types, null and missing, arrays). */
const mixedSort = (query: Doc, docs: Doc[]) => {
  const { $sort, $limit: _l, $skip: _s, ...conditions } = query
  if (!$sort) return false
  const matched = docs.filter((doc) => oracleMatch(doc, conditions))
  return Object.keys($sort).some((key) => {
    const types = new Set(
      matched.map((doc) =>
        Array.isArray(doc[key])
          ? 'array'
          : doc[key] === undefined
            ? 'missing'
            : doc[key] === null
              ? 'null'
              : typeof doc[key]
      )
    )
    return types.size > 1 || types.has('array')
  })
}
/** A condition on the dotted path `o.x` with null, `$size`, `$exists` or a negation anywhere in it. */
const dottedNullish = (query: unknown): boolean =>
  !!query &&
  typeof query === 'object' &&
  Object.entries(query as Doc).some(
    ([key, v]) =>
      (key === 'o.x' && JSON.stringify(v).match(/null|\$size|\$exists|\$ne|\$nin/) !== null) ||
      dottedNullish(v)
  )
export const emulatorGaps: { gap: string; meets: (query: Doc, docs: Doc[]) => boolean }[] = [
  {
    gap: 'a dotted path through a missing parent or an array of objects: null, `$size`, `$exists` and negations follow mingo’s own path rules',
    meets: (query) => dottedNullish(query)
  },
  {
    gap: '`$lte: null` and `$gte: null` do not match a missing field',
    meets: (query) => usesNullBound(query)
  },
  {
    gap: 'sorting mixes up arrays (no min/max), null and missing, and values of different types',
    meets: mixedSort
  }
]

// ---------------------------------------------------------------------------------------------------------------

describe('store: query semantics are MongoDB’s on both engines', function () {
  this.timeout(300000)
  let emulator: MongoEmulator | undefined
  let onEmulator = false
  const dataDir = tempDir()
  const apps: any[] = []
  const stores: Record<'nedbIndexed' | 'nedbPlain' | 'mongo', any> = {} as any
  const skippedOnEmulator = new Map<string, number>()

  const appFor = (mongodb: string) => {
    const app: any = feathers()
    app.set('dataDir', dataDir)
    app.set('mongodb', mongodb)
    app.set('paginate', { default: 10, max: 50 })
    app.set('storeSync', 'batch')
    app.set('nedb', { compactionIntervalMs: 0 })
    app.configure(store)
    apps.push(app)
    return app
  }
  const storeIn = (app: any, name: string, indexes: Record<string, 1>[] = []) => {
    app.use(
      name,
      createStore(app, {
        name,
        paginate: false,
        operators: ['$exists', '$size', '$elemMatch'],
        indexes: indexes.map((fields) => ({ fields }))
      })
    )
    return app.service(name)
  }

  before(async () => {
    let url = testMongoUrl()
    if (!url) {
      emulator = await startMongoEmulator()
      url = emulator.url
    }
    const embedded = appFor('')
    stores.nedbIndexed = storeIn(embedded, 'indexed', [
      { n: 1 },
      { a: 1 },
      { b: 1 },
      { c: 1 },
      { d: 1 },
      { tags: 1 },
      { 'o.x': 1 }
    ])
    stores.nedbPlain = storeIn(embedded, 'plain')
    const mongo = appFor(url)
    stores.mongo = storeIn(mongo, 'docs', [{ a: 1 }])
    await Promise.all(apps.map((app) => storeReady(app)))
    const collection: any = await stores.mongo.getOptions({}).Model
    const build = await collection.s.db.admin().command({ buildInfo: 1 })
    onEmulator = build.gitVersion === 'congodb'
    for (const service of Object.values(stores))
      await service.create(
        documents.map((doc) => structuredClone(doc)) as any,
        { adapter: { multi: true } } as any
      )
  })
  after(async () => {
    for (const app of apps) await closeStore(app)
    await emulator?.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
    if (skippedOnEmulator.size > 0)
      console.log(
        `      (emulator gaps met: ${[...skippedOnEmulator].map(([gap, count]) => `${gap} × ${count}`).join('; ')})`
      )
  })

  const answer = async (service: any, query: Doc) =>
    ((await service.find({ query: structuredClone(query) })) as Doc[]).map((doc) => doc.n)
  const sorted = (ns: number[]) => [...ns].sort((x, y) => x - y)

  /** Checks one query on every store against the oracle; the MongoDB store as far as the emulator allows. */
  const check = async (query: Doc) => {
    const expected = oracleFind(documents, query)
    const ordered = !!query.$sort
    const shape = (ns: number[]) => (ordered ? ns : sorted(ns))
    for (const name of ['nedbIndexed', 'nedbPlain'] as const) {
      assert.deepEqual(
        shape(await answer(stores[name], query)),
        shape(expected),
        `${name}: ${JSON.stringify(query)}`
      )
    }
    const gaps = onEmulator ? emulatorGaps.filter(({ meets }) => meets(query, documents)) : []
    for (const { gap } of gaps) skippedOnEmulator.set(gap, (skippedOnEmulator.get(gap) ?? 0) + 1)
    if (gaps.some(({ gap }) => !gap.startsWith('sorting'))) return
    if (gaps.length > 0) {
      // Sorting is the gap: the matched set is still compared.
      const { $sort: _s, $limit: _l, $skip: _k, ...conditions } = query
      assert.deepEqual(
        sorted(await answer(stores.mongo, conditions)),
        sorted(oracleFind(documents, conditions)),
        `mongo (set): ${JSON.stringify(conditions)}`
      )
      return
    }
    assert.deepEqual(
      shape(await answer(stores.mongo, query)),
      shape(expected),
      `mongo: ${JSON.stringify(query)}`
    )
  }

  const cases: [string, Doc][] = [
    ['`{ f: null }` matches a missing field, a null one and an array holding null', { a: null }],
    ['`$in: [null]` matches a missing field', { a: { $in: [null, 10] } }],
    ['`$ne: null` matches a present, non-null field only', { a: { $ne: null } }],
    ['`$nin: [null]` matches a present, non-null field only', { b: { $nin: [null] } }],
    ['`$ne` on an array matches when no element equals', { tags: { $ne: 'a' } }],
    ['`$nin` on an array matches when no element is listed', { tags: { $nin: ['a', 'c'] } }],
    ['equality on an array field matches an array containing the value', { tags: 'b' }],
    ['`$in` on an array field matches an array containing a listed value', { tags: { $in: ['b', 'z'] } }],
    ['range bounds on an array may hold for different elements', { a: { $gt: 1, $lt: 2 } }],
    ['a range on a missing field matches nothing', { b: { $lt: 100 } }],
    ['`$lte: null` means null or missing', { a: { $lte: null } }],
    ['numbers never equal strings', { a: { $in: [1] } }],
    ['strings compare with strings only', { b: { $gte: '' } }],
    ['`$exists: false`', { b: { $exists: false } }],
    ['a dotted path into objects and arrays of objects, with null', { 'o.x': null }],
    ['`$elemMatch` on an array of objects', { o: { $elemMatch: { x: { $gte: 1 } } } }],
    ['null and missing sort alike, an empty array first', { $sort: { a: 1, n: 1 } }],
    ['a descending sort takes an array’s largest element', { $sort: { a: -1, n: 1 }, $skip: 2, $limit: 9 }],
    ['an indexed sort key with missing and null values, paged', { $sort: { b: 1, n: -1 }, $limit: 12 }],
    ['an empty array sorts first, though no index node holds it', { $sort: { d: 1, n: 1 }, $limit: 3 }],
    [
      'a page walked in index order: missing and null keys are one group, ordered by the next key',
      { $sort: { c: 1, n: -1 }, $limit: 25 }
    ]
  ]
  for (const [name, query] of cases) it(name, () => check(query))

  it('generated queries: every store answers as MongoDB’s rules say (fast-check)', async () => {
    await fc.assert(fc.asyncProperty(queryArb, check), { numRuns: 400, seed: 424242 })
  })

  it(`replaces NeDB ${NEDB_VERSION}'s matcher exactly: the installed version, and NeDB's own finds, counts, updates and removes use it`, async () => {
    assert.equal(
      installedNedbVersion(),
      NEDB_VERSION,
      'the matcher override is written for one @seald-io/nedb version: check its internals before upgrading'
    )
    void new IndexedNeDB({ inMemoryOnly: true })
    // A plain NeDB datastore: NeDB's own cursor, update and remove code paths.
    const db = new NeDB({ inMemoryOnly: true })
    await db.insertAsync([{ k: 1 }, { k: 2, f: null }, { k: 3, f: 1 }, { k: 4, f: [1, 2] }])
    assert.deepEqual((await db.findAsync({ f: { $in: [null] } })).map((d: any) => d.k).sort(), [1, 2])
    assert.deepEqual((await db.findAsync({ f: { $ne: 2 } })).map((d: any) => d.k).sort(), [1, 2, 3])
    assert.equal((await db.findOneAsync({ $and: [{ f: { $exists: false } }] }))?.k, 1)
    assert.equal(await db.countAsync({ f: { $gt: 1, $lt: 2 } }), 1)
    assert.equal(
      (await db.updateAsync({ f: { $ne: null } }, { $set: { seen: true } }, { multi: true })).numAffected,
      2
    )
    assert.equal(await db.removeAsync({ f: { $nin: [1] } }, { multi: true }), 2)
  })
})

describe('queries for null over HTTP and Socket.IO', function () {
  let server: TestServer
  let facility: FacilityFixture
  let open: string
  let finalized: string
  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    open = (await invoiceWithItems(server.url, facility, [500])).invoice.id
    finalized = (await invoiceWithItems(server.url, facility, [700])).invoice.id
    const res = await http(server.url, 'PATCH', `/billing-invoices/${finalized}`, {
      token: facility.biller.token,
      body: { finalize: true, dueAt: 1700000000000 }
    })
    assert.equal(res.status, 200, JSON.stringify(res.body))
  })
  after(() => server.close())

  const ids = (body: any) => body.data.map((invoice: any) => invoice.id).sort()
  const get = (query: string) =>
    http(server.url, 'GET', `/billing-invoices?facility=${facility.id}&${query}`, {
      token: facility.biller.token
    })

  it('GET /billing-invoices?finalizedAt=null lists the unfinalized invoices; finalizedAt[$ne]=null the finalized', async () => {
    const unfinalized = await get('finalizedAt=null')
    assert.equal(unfinalized.status, 200, JSON.stringify(unfinalized.body))
    assert.deepEqual(ids(unfinalized.body), [open])
    const done = await get('finalizedAt[$ne]=null')
    assert.deepEqual(ids(done.body), [finalized])
    const either = await get('finalizedAt[$in][]=null&finalizedAt[$in][]=0')
    assert.deepEqual(ids(either.body), [open])
  })

  it('null finds a field that is missing (an invoice without a due date)', async () => {
    const res = await get('dueAt=null')
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(ids(res.body), [open])
  })

  it('over Socket.IO, `{ finalizedAt: null }` is null, not 0', async () => {
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.biller.token })
      const page: any = await socket.client
        .service('billing-invoices')
        .find({ query: { facility: facility.id, finalizedAt: null } })
      assert.deepEqual(
        page.data.map((invoice: any) => invoice.id),
        [open]
      )
    } finally {
      socket.close()
    }
  })

  it('null on a field that is never null or missing is a 400 naming it (not a search for 0)', async () => {
    const res = await get('total=null')
    assert.equal(res.status, 400)
    assert.deepEqual(fieldsOf(res.body), ['total'])
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.biller.token })
      await assert.rejects(
        socket.client
          .service('billing-invoices')
          .find({ query: { facility: facility.id, total: { $in: [null] } } } as any),
        (error: any) => {
          assert.equal(error.code, 400)
          assert.deepEqual(fieldsOf(error), ['total.$in.0'])
          return true
        }
      )
    } finally {
      socket.close()
    }
  })
})
