// The embedded engine's candidate selection, taught to use indexes for access-scoped queries. NeDB itself only
// consults an index for a top-level field of the query, so `{ $and: [{ $or: [...] }] }` (how access rules are
// merged, src/hooks/scope-access.ts) scanned every document. Here a query's candidates come from an index
// wherever one covers a conjunct: a plain value or `$in` on an indexed field, `$elemMatch` on an indexed
// sub-field (`permissions.uid`), the smallest such set for `$and`/top-level fields, and the union of the
// branches' sets for `$or` (when each branch has one). Candidates are only a superset: NeDB still matches every
// candidate against the whole query, so results are unchanged — only the number of documents examined shrinks.
// (Index keys are what NeDB itself indexes: each value of an array field, not values nested in arrays of arrays —
// the same limit NeDB's own index use has.)
import NeDB from '@seald-io/nedb'
import Cursor from '@seald-io/nedb/lib/cursor.js'
import { deepCopy, getDotValue } from '@seald-io/nedb/lib/model'
import type { StoreDoc } from '../../contract'
import { compareSortKeys, matches, sortKeyOf, useMongoMatching } from './match'

type Doc = StoreDoc
type Docs = Doc[]
type Indexes = Record<string, { getMatching(value: unknown): Docs }>

const isPlainObject = (value: unknown): value is StoreDoc =>
  !!value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
const isIndexable = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'

/** Documents an index returns for `value` (a plain value, or `{ $in: [...] }`), or null when it cannot tell. */
const fromIndex = (indexes: Indexes, field: string, value: unknown): Docs | null => {
  const index = indexes[field]
  if (!index) return null
  if (isIndexable(value)) return index.getMatching(value)
  if (isPlainObject(value) && Array.isArray(value.$in) && value.$in.every(isIndexable))
    return index.getMatching(value.$in)
  return null
}

/**
 * A superset of the documents matching `query`, taken from indexes, with fewer than `bound` documents; null when
 * no index narrows it that far. Plain fields are looked at first, then `$and` parts, then `$or` unions, each
 * abandoned as soon as it cannot beat the smallest set found so far.
 */
export const indexedCandidates = (indexes: Indexes, query: unknown, bound = Infinity): Docs | null => {
  if (!isPlainObject(query)) return null
  let best: Docs | null = null
  const limit = () => (best ? best.length : bound)
  const consider = (set: Docs | null) => {
    if (set && set.length < limit()) best = set
  }
  const entries = Object.entries(query)
  for (const [key, value] of entries) {
    if (key.startsWith('$')) continue
    consider(fromIndex(indexes, key, value))
    const elemMatch = isPlainObject(value) ? value.$elemMatch : undefined
    if (isPlainObject(elemMatch)) {
      for (const [sub, subValue] of Object.entries(elemMatch)) {
        if (!sub.startsWith('$')) consider(fromIndex(indexes, `${key}.${sub}`, subValue))
      }
    }
  }
  for (const [key, value] of entries) {
    if (key === '$and' && Array.isArray(value))
      for (const part of value) consider(indexedCandidates(indexes, part, limit()))
  }
  for (const [key, value] of entries) {
    if (key !== '$or' || !Array.isArray(value) || value.length === 0) continue
    const union = new Set<Doc>()
    let complete = true
    for (const branch of value) {
      const set = indexedCandidates(indexes, branch, limit())
      if (!set) {
        complete = false
        break
      }
      for (const doc of set) union.add(doc)
      if (union.size >= limit()) {
        complete = false
        break
      }
    }
    if (complete) consider([...union])
  }
  return best
}

// NeDB's private methods the datastore below calls or wraps (absent from its typings; written for @seald-io/nedb
// 4.1.2, NEDB_VERSION in ./match.ts: test/store/nedb-internals.test.ts fails when one of them changes).
interface NeDBPrivate {
  /** The candidate documents of a query, from one index or all (used by find, count, update and remove alike). */
  _getRawCandidates(this: NeDB, query: unknown): Docs
  /** `_getRawCandidates`, less the documents whose TTL expired (removed on the way). */
  _getCandidatesAsync(query: unknown): Promise<Docs>
  _updateIndexes(this: NeDB, oldDoc: Doc | IndexUpdate[], newDoc?: Doc): void
  _resetIndexes(this: NeDB, newData?: Doc | Docs): void
  _addToIndexes(this: NeDB, doc: Doc): void
  _removeFromIndexes(this: NeDB, doc: Doc): void
}
interface IndexUpdate {
  oldDoc: Doc
  newDoc: Doc
}
const nedb = NeDB.prototype as unknown as NeDBPrivate

// ---------------------------------------------------------------------------------------------------------------
// Exact conjunctions, ordered index walks and cheap projections. When a whole query is a conjunction (top-level
// fields and `$and` parts) of plain values or `$in` lists on indexed fields, the index sets ARE the answer: the
// documents are taken from the smallest set and checked against the other conditions directly, without the
// generic matcher. A `$sort` whose first key is an indexed field, ascending, with a `$limit`, walks that index in
// order and stops once the page is full (falling back to a full sort if the walk would be longer, or meets an array
// or object value there). Pick-projections of top-level fields copy only the picked fields. Any other query takes
// NeDB's candidates and the MongoDB-semantics matcher (./match.ts); sorting is MongoDB's order throughout.
// Results are the same as a full scan's (test/store/nedb-candidates.test.ts compares them with plain NeDB, and
// test/store/query-semantics.test.ts with MongoDB's rules).
// (The cursor below subclasses lib/cursor.js of @seald-io/nedb 4.1.2, replacing its `_execAsync` and reading its
// query, sort, skip, limit, projection and map function; typed in ./internals.d.ts.)

type Conjunct = [field: string, values: unknown[]]

/** The query as index-exact conditions, or null when a part is something else. */
export const exactConjuncts = (indexes: Indexes, query: unknown): Conjunct[] | null => {
  if (!isPlainObject(query)) return null
  const out: Conjunct[] = []
  for (const [key, value] of Object.entries(query)) {
    if (key === '$and') {
      if (!Array.isArray(value)) return null
      for (const part of value) {
        const sub = exactConjuncts(indexes, part)
        if (!sub) return null
        out.push(...sub)
      }
      continue
    }
    if (key.startsWith('$') || !indexes[key] || key === '_id') return null
    if (isIndexable(value)) out.push([key, [value]])
    else if (
      isPlainObject(value) &&
      Object.keys(value).length === 1 &&
      Array.isArray(value.$in) &&
      value.$in.every(isIndexable)
    )
      out.push([key, value.$in])
    else return null
  }
  return out
}

const lookup = (indexes: Indexes, [field, values]: Conjunct): Docs => {
  const index = indexes[field]
  if (values.length === 1) return index.getMatching(values[0])
  const lists = values.map((value) => index.getMatching(value)).filter((list) => list.length > 0)
  if (lists.length <= 1) return lists[0] ?? []
  return [...new Set(lists.flat())]
}

/** A membership test against a condition's index sets. */
const memberOf = (indexes: Indexes, [field, values]: Conjunct) => {
  const members = new Set<unknown>()
  for (const value of values) for (const doc of indexes[field].getMatching(value)) members.add(doc)
  return (doc: unknown) => members.has(doc)
}

/** At most how many documents a condition selects (a document may be counted once per value it holds). */
const estimate = (indexes: Indexes, [field, values]: Conjunct) =>
  values.reduce((sum: number, value) => sum + indexes[field].getMatching(value).length, 0)

const satisfies = (doc: Doc, [field, values]: Conjunct) => {
  const value = field.includes('.') ? getDotValue(doc, field) : doc[field]
  return Array.isArray(value)
    ? value.some((item) => isIndexable(item) && values.includes(item))
    : isIndexable(value) && values.includes(value)
}

// ---------------------------------------------------------------------------------------------------------------
// Access-scoped queries: a conjunction (top-level fields and `$and` parts) with `$or` parts, e.g. the permission
// query `{ $and: [{ $or: [{ createdBy: me }, { permissions: { $elemMatch: { uid: me } } }, …] }] }`. The matching
// documents are taken from the smallest source — an index-exact condition, or the union of an `$or`'s branch
// candidates — and each is checked only against what its source does not already guarantee: a document from a
// branch that is index-exact (a plain value or `$in` on an indexed field, or `{ f: { $elemMatch: { s: v } } }`
// with an index on `f.s` and `f` an array in that document) needs no check for that `$or`; other branches are
// checked with NeDB's matcher on that branch alone; the remaining parts of the conjunction with NeDB's matcher (or
// the index-exact test). NeDB's own path matched every candidate against the whole query.

interface Branch {
  query: Record<string, unknown>
  candidates: Docs
  /** When set: a candidate for which this holds matches the branch without further check. */
  exact: ((doc: Doc) => boolean) | null
}

type Part =
  | { kind: 'exact'; conjunct: Conjunct; size: number }
  | { kind: 'or'; query: Record<string, unknown>; branches: Branch[] | null; size: number }
  | { kind: 'other'; query: Record<string, unknown> }

/** The conjunction's parts (each a one-key query), or null when the query is not a plain object. */
const conjunctionParts = (
  query: unknown,
  out: Record<string, unknown>[] = []
): Record<string, unknown>[] | null => {
  if (!isPlainObject(query)) return null
  for (const [key, value] of Object.entries(query)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const part of value) if (!conjunctionParts(part, out)) return null
    } else out.push({ [key]: value })
  }
  return out
}

const always = () => true

const branchOf = (indexes: Indexes, query: unknown): Branch | null => {
  if (!isPlainObject(query)) return null
  const conjuncts = exactConjuncts(indexes, query)
  if (conjuncts && conjuncts.length === 1)
    return { query, candidates: lookup(indexes, conjuncts[0]), exact: always }
  const keys = Object.keys(query)
  if (keys.length === 1 && !keys[0].startsWith('$') && !keys[0].includes('.')) {
    const field = keys[0]
    const elemMatch =
      isPlainObject(query[field]) && Object.keys(query[field]).length === 1
        ? query[field].$elemMatch
        : undefined
    if (isPlainObject(elemMatch) && Object.keys(elemMatch).length === 1) {
      const [sub] = Object.keys(elemMatch)
      const candidates =
        sub.startsWith('$') || sub.includes('.')
          ? null
          : fromIndex(indexes, `${field}.${sub}`, elemMatch[sub])
      if (candidates) return { query, candidates, exact: (doc: Doc) => Array.isArray(doc[field]) }
    }
  }
  const candidates = indexedCandidates(indexes, query)
  return candidates ? { query, candidates, exact: null } : null
}

const partOf = (indexes: Indexes, part: Record<string, unknown>): Part => {
  const [key] = Object.keys(part)
  if (key === '$or' && Array.isArray(part.$or) && part.$or.length > 0) {
    const branches: Branch[] = []
    for (const query of part.$or) {
      const branch = branchOf(indexes, query)
      if (!branch) return { kind: 'or', query: part, branches: null, size: Infinity }
      branches.push(branch)
    }
    return {
      kind: 'or',
      query: part,
      branches,
      size: branches.reduce((sum, branch) => sum + branch.candidates.length, 0)
    }
  }
  const conjuncts = key.startsWith('$') ? null : exactConjuncts(indexes, part)
  if (conjuncts && conjuncts.length === 1)
    return { kind: 'exact', conjunct: conjuncts[0], size: estimate(indexes, conjuncts[0]) }
  return { kind: 'other', query: part }
}

/**
 * `{ f: { $exists: bool } }` on a top-level field as a direct test (the matcher's answer for one reached value:
 * present means not undefined), or null for any other part. Access rules add such a part to every query (a
 * record being removed is marked).
 */
const presence = (query: Record<string, unknown>): ((doc: Doc) => boolean) | null => {
  const [field] = Object.keys(query)
  const condition = query[field]
  if (field.startsWith('$') || field.includes('.') || !isPlainObject(condition)) return null
  const operators = Object.keys(condition)
  if (operators.length !== 1 || operators[0] !== '$exists') return null
  const wanted = !!condition.$exists
  return (doc: Doc) => (doc[field] !== undefined) === wanted
}

/**
 * The documents matching a conjunction with at least one `$or` part, or null when no part can drive the
 * selection from indexes (or the query has no `$or`: the exact-conjunction path or NeDB's own handle it).
 */
export const orPlanMatches = (indexes: Indexes, query: unknown): Docs | null => {
  const raw = conjunctionParts(query)
  if (!raw || !raw.some((part) => '$or' in part)) return null
  const parts = raw.map((part) => partOf(indexes, part))
  let driver: Part | null = null
  for (const part of parts) {
    if (part.kind === 'other' || (part.kind === 'or' && !part.branches)) continue
    if (!driver || part.size < (driver as { size: number }).size) driver = part
  }
  if (!driver) return null
  let docs: Docs
  if (driver.kind === 'or') {
    // (a document found through several branches is taken once; with one non-empty branch there is nothing to merge)
    const sources = (driver.branches as Branch[]).filter((branch) => branch.candidates.length > 0)
    const accepted = sources.length > 1 ? new Set<Doc>() : null
    docs = []
    for (const branch of sources) {
      for (const doc of branch.candidates) {
        if (accepted?.has(doc)) continue
        if ((branch.exact && branch.exact(doc)) || matches(doc, branch.query)) {
          accepted?.add(doc)
          docs.push(doc)
        }
      }
    }
  } else docs = lookup(indexes, (driver as { conjunct: Conjunct }).conjunct)
  const checks = parts
    .filter((part) => part !== driver)
    .map((part) =>
      part.kind === 'exact'
        ? (doc: Doc) => satisfies(doc, part.conjunct)
        : (presence(part.query) ?? ((doc: Doc) => matches(doc, part.query)))
    )
  return checks.length === 0 ? docs : docs.filter((doc) => checks.every((check) => check(doc)))
}

interface TreeNode {
  key?: unknown
  data: Docs
  left?: TreeNode | null
  right?: TreeNode | null
  parent?: TreeNode | null
  height?: number
}

/** In-order walk of an index tree; `visit` returns false to stop. */
const walk = (node: TreeNode | null | undefined, visit: (node: TreeNode) => boolean): boolean => {
  if (!node) return true
  if (!walk(node.left, visit)) return false
  if (node.data.length > 0 && !visit(node)) return false
  return walk(node.right, visit)
}

const countOf = (docs: { length: number }) => docs.length

/**
 * Documents sorted by `criteria`, MongoDB's order (src/store/engines/nedb/match.ts: null and missing alike, an array by its
 * smallest or largest element), sort keys read once each. A key that is a number in every document is compared as
 * a number, without type checks: the common case, a page of records by `createdAt`.
 */
const sortedByKeys = (docs: Docs, criteria: { key: string; direction: number }[], take?: number): Docs => {
  if (criteria.length === 1 && !criteria[0].key.includes('.')) {
    const sorted = sortedByNumber(docs, criteria[0].key, criteria[0].direction, take)
    if (sorted) return sorted
  }
  const keyed = docs.map((doc) => ({
    doc,
    keys: criteria.map(({ key, direction }) => sortKeyOf(doc, key, direction))
  }))
  const numeric = criteria.map((_criterion, i) =>
    keyed.every((entry) => typeof entry.keys[i] === 'number' && !Number.isNaN(entry.keys[i]))
  )
  const compare = (a: (typeof keyed)[number], b: (typeof keyed)[number]) => {
    for (let i = 0; i < criteria.length; i++) {
      const result =
        criteria[i].direction *
        (numeric[i]
          ? Math.sign((a.keys[i] as number) - (b.keys[i] as number))
          : compareSortKeys(a.keys[i], b.keys[i]))
      if (result !== 0) return result
    }
    return 0
  }
  if (take !== undefined && take < keyed.length / 4) {
    // Only the first `take` are wanted (a page): kept in order while one pass over the matches goes by — most are
    // turned away by one comparison with the last kept. Equal keys keep the matches' order, as the full sort does.
    const best: typeof keyed = []
    for (const entry of keyed) {
      if (best.length === take && compare(entry, best[take - 1]) >= 0) continue
      let low = 0
      let high = best.length
      while (low < high) {
        const middle = (low + high) >> 1
        if (compare(entry, best[middle]) < 0) high = middle
        else low = middle + 1
      }
      best.splice(low, 0, entry)
      if (best.length > take) best.pop()
    }
    return best.map((entry) => entry.doc)
  }
  keyed.sort(compare)
  return keyed.map((entry) => entry.doc)
}

/**
 * `sortedByKeys` for one top-level key holding a number in every document (a page by `createdAt`): the keys read
 * straight from the documents into one array, the first `take` kept by a pass over them (or all sorted by index),
 * nothing allocated per document; equal keys keep the matches' order, as the general path does. Null when a
 * document holds anything else there (the general path then applies MongoDB's order of types).
 */
const sortedByNumber = (docs: Docs, key: string, direction: number, take?: number): Docs | null => {
  const keys = new Float64Array(docs.length)
  for (let i = 0; i < docs.length; i++) {
    const value = docs[i][key]
    if (typeof value !== 'number' || value !== value) return null
    keys[i] = direction < 0 ? -value : value
  }
  if (take !== undefined && take < docs.length / 4) {
    const best: number[] = []
    for (let i = 0; i < docs.length; i++) {
      const key = keys[i]
      if (best.length === take && key >= keys[best[take - 1]]) continue
      let low = 0
      let high = best.length
      while (low < high) {
        const middle = (low + high) >> 1
        if (key < keys[best[middle]]) high = middle
        else low = middle + 1
      }
      best.splice(low, 0, i)
      if (best.length > take) best.pop()
    }
    return best.map((i) => docs[i])
  }
  const order = Array.from({ length: docs.length }, (_, i) => i)
  order.sort((a, b) => keys[a] - keys[b] || a - b)
  return order.map((i) => docs[i])
}

/** Copies all documents (what NeDB's find does with its results). */
export const copyAll = (docs: Docs) => docs.map((doc) => deepCopy(doc))

class IndexedCursor extends Cursor {
  declare db: IndexedNeDB

  async _execAsync() {
    const db = this.db
    const ttl = Object.keys(db.ttlIndexes ?? {}).length > 0
    const conjuncts = ttl ? null : exactConjuncts(db.indexes, this.query)
    if (!conjuncts) {
      const plan = ttl ? null : db.orPlanCached(this.query)
      return this.finish(plan ? plan.docs : await this.scanned(), null, plan)
    }

    // Counting everything needs no documents.
    if (
      conjuncts.length === 0 &&
      !this._sort &&
      !this._skip &&
      !this._limit &&
      this.mapFn === countOf &&
      typeof db.documentCount === 'number'
    ) {
      return countOf({ length: db.documentCount })
    }
    // The matching documents: the smallest condition's documents, checked against the others.
    let sized: { conjunct: Conjunct; size: number }[] = []
    const listMatched = (): Docs => {
      if (conjuncts.length === 0) return db.getAllData()
      const [base, ...rest] = sized
      const docs = lookup(db.indexes, base.conjunct)
      // A condition selecting not many more documents than the base is checked by membership in its index sets
      // (cheaper than reading each document's own, possibly long, arrays); much larger ones on the documents.
      const checks = rest.map(({ conjunct, size }) =>
        size <= docs.length * 8 ? memberOf(db.indexes, conjunct) : (doc: Doc) => satisfies(doc, conjunct)
      )
      return checks.length === 0 ? docs : docs.filter((doc) => checks.every((check) => check(doc)))
    }
    sized = conjuncts
      .map((conjunct) => ({ conjunct, size: estimate(db.indexes, conjunct) }))
      .sort((a, b) => a.size - b.size)
    return this.finish(listMatched, { conjuncts, bound: conjuncts.length === 0 ? Infinity : sized[0].size })
  }

  /**
   * The matching documents among NeDB's candidates (from its indexes, or every document), matched with MongoDB's
   * semantics; without a sort, only as many as the page needs.
   */
  async scanned(): Promise<Docs> {
    const candidates = await (this.db as unknown as NeDBPrivate)._getCandidatesAsync(this.query)
    const wanted = !this._sort && this._limit ? (this._skip || 0) + this._limit : Infinity
    const out: Docs = []
    for (const doc of candidates) {
      if (!matches(doc, this.query)) continue
      out.push(doc)
      if (out.length >= wanted) break
    }
    return out
  }

  /**
   * Sort, skip, limit and projection of the matching documents (a list, or a function listing them when needed).
   * With `walkable` (index-exact conjuncts and a bound on their matches), a limited sort may walk an index instead.
   */
  finish(
    matched: Docs | (() => Docs),
    walkable: { conjuncts: Conjunct[]; bound: number } | null,
    plan: OrPlan | null = null
  ) {
    const listMatched = typeof matched === 'function' ? matched : () => matched
    const skip: number = this._skip || 0
    const limit: number | undefined = this._limit || undefined
    let res: Docs
    if (this._sort) {
      const criteria = Object.entries(this._sort as Record<string, number>).map(([key, direction]) => ({
        key,
        direction
      }))
      const compare = (a: Doc, b: Doc, from = 0) => {
        for (let i = from; i < criteria.length; i++) {
          const { key, direction } = criteria[i]
          const result =
            direction * compareSortKeys(sortKeyOf(a, key, direction), sortKeyOf(b, key, direction))
          if (result !== 0) return result
        }
        return 0
      }
      // A page in index order first (bounded by what sorting the matches would cost: the smallest condition's size
      // bounds their number; no conditions: never longer than sorting everything); else every match, sorted (by
      // sort keys read once per document, not once per comparison).
      const walked =
        limit !== undefined && walkable
          ? this.walkIndex(criteria, walkable.conjuncts, walkable.bound, skip + limit, compare)
          : null
      const ordered =
        walked ??
        plan?.sorted(criteria) ??
        sortedByKeys(listMatched(), criteria, limit === undefined ? undefined : skip + limit)
      res = ordered.slice(skip, limit === undefined ? undefined : skip + limit)
    } else res = listMatched().slice(skip, limit === undefined ? undefined : skip + limit)

    const keys = this.pickedFields()
    if (keys) {
      const keepId = this._projection?._id !== 0
      res = res.map((doc) => {
        const out: Record<string, unknown> = {}
        if (keepId) out._id = doc._id
        for (const key of keys) if (doc[key] !== undefined) out[key] = deepCopy(doc[key])
        return out
      })
      return this.mapFn === copyAll ? res : this.mapFn ? this.mapFn(res) : res
    }
    res = this._project(res)
    return this.mapFn ? this.mapFn(res) : res
  }

  /**
   * The first `count` documents in sort order by walking the first sort key's index, keeping those that satisfy
   * `conjuncts`; null when not applicable or when the walk would cost more than sorting the `matched` documents.
   * Not applicable: a sparse index, or a field that has held an array (a document without a key there, e.g. an
   * empty array, is absent from the index; MongoDB sorts it first). The index orders a missing key before null;
   * MongoDB sorts them alike, so their nodes make one group ordered by the other sort keys.
   */
  walkIndex(
    criteria: { key: string; direction: number }[],
    conjuncts: Conjunct[],
    matched: number,
    count: number,
    compare: (a: Doc, b: Doc, from?: number) => number
  ): Docs | null {
    const db = this.db
    const [first] = criteria
    const index = db.indexes[first.key]
    if (!index || index.sparse || first.direction !== 1 || (db.arrayFields as Set<string>).has(first.key))
      return null
    let budget = Math.max(256, matched * Math.log2(matched + 1))
    const out: Docs = []
    let complete = true
    let group: Docs = []
    let nullish = false
    const flush = () => {
      if (group.length > 1) group.sort((a, b) => compare(a, b, 1))
      out.push(...group)
      group = []
    }
    walk(index.tree.tree, (node) => {
      // (a missing key's node, then null's: one group)
      const keyNullish = node.key === undefined || node.key === null
      if (!(keyNullish && nullish)) {
        flush()
        if (out.length >= count) return false
      }
      nullish = keyNullish
      for (const doc of node.data) {
        const value = getDotValue(doc, first.key)
        if (value !== null && typeof value === 'object') {
          complete = false
          return false
        }
        if (conjuncts.every((conjunct) => satisfies(doc, conjunct))) group.push(doc)
      }
      budget -= node.data.length
      if (budget < 0) {
        complete = false
        return false
      }
      return true
    })
    if (!complete) return null
    flush()
    return out
  }

  /** Top-level fields of a pick-projection (`{ a: 1, b: 1 }`, `_id` optional), or null. */
  pickedFields(): string[] | null {
    const projection = this._projection
    if (!projection || Object.keys(projection).length === 0) return null
    const keys = Object.keys(projection).filter((key) => key !== '_id')
    if (
      keys.length === 0 ||
      keys.some((key) => projection[key] !== 1 || key.includes('.') || key.startsWith('$'))
    )
      return null
    return keys
  }
}

/**
 * The part of a query NeDB's own candidate selection may be given: it looks a plain value, an `$in` list or range
 * bounds up in an index, which is right for NeDB's matcher but loses documents MongoDB's semantics match — a
 * missing field for `null` (`{ f: null }`, `$in: [null]`, `$gte: null`: the index keeps missing and null apart),
 * an array equal to an array value, and, on a field that has held an array, elements satisfying different bounds
 * of one range. Such conditions are left out (the candidates stay a superset: every candidate is matched against
 * the whole query); on a field that has held an array a range keeps its lower bounds only.
 */
export const candidateQuery = (query: unknown, arrayFields: Set<string>): Record<string, unknown> => {
  if (!isPlainObject(query)) return {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(query)) {
    if (key.startsWith('$') || value === null || Array.isArray(value)) continue
    if (!isPlainObject(value) || !Object.keys(value).some((operator) => operator.startsWith('$'))) {
      out[key] = value
      continue
    }
    if ('$in' in value) {
      if (
        Array.isArray(value.$in) &&
        value.$in.every(
          (item: unknown) => item !== null && (typeof item !== 'object' || item instanceof Date)
        )
      )
        out[key] = { $in: value.$in }
      continue
    }
    const bounds = Object.entries(value).filter(
      ([operator]) =>
        ['$gt', '$gte', '$lt', '$lte'].includes(operator) &&
        !(arrayFields.has(key) && operator.startsWith('$l'))
    )
    if (bounds.length > 0 && bounds.every(([, bound]) => bound !== null))
      out[key] = Object.fromEntries(bounds)
  }
  return out
}

/** The matches of an `$or` plan, and (when kept for repeated use) them sorted by given criteria, else null. */
interface OrPlan {
  docs: Docs
  sorted(criteria: { key: string; direction: number }[]): Docs | null
}

/** Bounds of a datastore's cache of `$or` plan matches (IndexedNeDB.orPlanCached). */
const OR_PLAN_CACHE = { queries: 64, docs: 200_000, docsPerQuery: 20_000 }

/**
 * A query as a string saying everything about it, when it is made of plain objects, arrays, strings, finite numbers,
 * booleans and null only (a date, a regular expression, an undefined value or anything else: null, not cached).
 */
export const plainKey = (query: unknown): string | null => {
  const plain = (value: unknown): boolean => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
    if (typeof value === 'number') return Number.isFinite(value)
    if (Array.isArray(value)) return value.every(plain)
    if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false
    for (const key in value as Record<string, unknown>) {
      const item = (value as Record<string, unknown>)[key]
      // (an undefined value is not the same query as a missing key, but JSON would say it is)
      if (item === undefined || !plain(item)) return false
    }
    return true
  }
  return plain(query) ? JSON.stringify(query) : null
}

// NeDB's index internals used here and by the bulk build (./bulk-index.ts); untyped in NeDB's typings.
interface NeDBIndex {
  _fields: string[]
  unique: boolean
  sparse: boolean
  treeOptions: Record<string, unknown>
  tree: { tree: TreeNode }
  reset(docs?: Docs): void
  getMatching(value: unknown): Docs
}

// A datastore whose candidate selection, cursors and index bookkeeping are those above. It overrides and calls
// private methods of @seald-io/nedb 4.1.2 (NeDBPrivate; its fields `indexes` and `ttlIndexes`), and replaces
// `findAsync`/`countAsync` with the indexed cursor: test/store/nedb-internals.test.ts fails when one changes.
export class IndexedNeDB extends NeDB {
  declare indexes: Record<string, NeDBIndex>
  declare ttlIndexes: Record<string, unknown>
  constructor(...args: ConstructorParameters<typeof NeDB>) {
    super(...args)
    // Every NeDB query of the store matches with MongoDB's semantics.
    useMongoMatching()
  }
  /**
   * Counts every change of the documents held (each insert, update, remove and load goes through the index
   * bookkeeping below): a result computed at one count is the answer as long as the count has not moved.
   */
  version = 0
  /**
   * The matches of recent access-scoped (`$or`) queries, by query, with the version they were computed at: a
   * paginated list asks twice (its count and its page) and a clinician's list repeats the same permission query
   * until something is written. The matched documents are the stored ones (a write replaces a document, never
   * changes it in place, and moves the version); a page copies what it returns. Bounded in queries and in
   * documents held; only queries made of plain JSON values (a key that says everything about the query).
   */
  private orPlans = new Map<string, OrPlan & { version: number }>()
  private orPlanDocs = 0
  orPlanCached(query: unknown): OrPlan | null {
    const key = plainKey(query)
    const cached = key === null ? undefined : this.orPlans.get(key)
    if (cached && cached.version === this.version) return cached
    if (cached) {
      this.orPlans.delete(key as string)
      this.orPlanDocs -= cached.docs.length
    }
    const docs = orPlanMatches(this.indexes, query)
    if (!docs) return null
    if (key === null || docs.length > OR_PLAN_CACHE.docsPerQuery) return { docs, sorted: () => null }
    while (
      this.orPlans.size >= OR_PLAN_CACHE.queries ||
      (this.orPlans.size > 0 && this.orPlanDocs + docs.length > OR_PLAN_CACHE.docs)
    ) {
      const [oldestKey, oldest] = this.orPlans.entries().next().value as [string, { docs: Docs }]
      this.orPlans.delete(oldestKey)
      this.orPlanDocs -= oldest.docs.length
    }
    // The matches in each order asked for, computed once (a sorted copy: the matches' list itself is kept as is).
    const orders = new Map<string, Docs>()
    const sorted = (criteria: { key: string; direction: number }[]) => {
      const order = JSON.stringify(criteria)
      let list = orders.get(order)
      if (!list) {
        if (orders.size >= 4) orders.clear()
        list = sortedByKeys(docs, criteria)
        orders.set(order, list)
      }
      return list
    }
    const plan = { version: this.version, docs, sorted }
    this.orPlans.set(key, plan)
    this.orPlanDocs += docs.length
    return plan
  }
  /** Indexed fields that have held an array in some document since the last load (see candidateQuery, walkIndex). */
  arrayFields = new Set<string>()
  private noteArrays(docs: Docs, fields: string[] = Object.keys(this.indexes)) {
    for (const field of fields) {
      if (field.includes(',') || this.arrayFields.has(field)) continue
      for (const doc of docs) {
        if (Array.isArray(getDotValue(doc, field))) {
          this.arrayFields.add(field)
          break
        }
      }
    }
  }
  _getRawCandidates(query: unknown): Docs {
    const indexed = indexedCandidates(this.indexes, query)
    if (indexed) return indexed
    const usable = candidateQuery(query, this.arrayFields)
    const docs = nedb._getRawCandidates.call(this, usable)
    // (a range over an index of array elements lists a document once per element in range)
    const ranged = Object.entries(usable).some(
      ([key, value]) => this.arrayFields.has(key) && isPlainObject(value) && !('$in' in value)
    )
    return ranged ? [...new Set(docs)] : docs
  }
  async ensureIndexAsync(options: NeDB.EnsureIndexOptions): Promise<void> {
    this.version += 1
    await super.ensureIndexAsync(options)
    this.noteArrays(this.getAllData(), [[options.fieldName].flat().sort().join(',')])
  }
  _updateIndexes(oldDoc: Doc | IndexUpdate[], newDoc?: Doc) {
    this.version += 1
    nedb._updateIndexes.call(this, oldDoc, newDoc)
    this.noteArrays(Array.isArray(oldDoc) ? oldDoc.map((pair) => pair.newDoc) : [newDoc as Doc])
  }
  // (casts: NeDB types its cursors as a promise-like interface that the cursor class does not declare)
  findAsync<T extends Doc>(query: unknown, projection: unknown = {}): NeDB.Cursor<T[]> {
    const cursor = new IndexedCursor(this, query, copyAll)
    cursor.projection(projection)
    return cursor as unknown as NeDB.Cursor<T[]>
  }
  countAsync(query: unknown): NeDB.Cursor<number> {
    return new IndexedCursor(this, query, countOf) as unknown as NeDB.Cursor<number>
  }
  /** How many documents the store holds, kept with its indexes (an unconditional count needs no walk). */
  documentCount = 0
  _resetIndexes(newData?: Doc | Docs) {
    this.version += 1
    this.arrayFields = new Set()
    const docs: Docs = Array.isArray(newData) ? newData : newData ? [newData] : []
    // (a large load's indexes are built in bulk by the engine's datastore: ./bulk-index.ts)
    nedb._resetIndexes.call(this, newData)
    this.noteArrays(docs)
    this.documentCount = Array.isArray(newData) ? newData.length : newData ? 1 : 0
  }
  _addToIndexes(doc: Doc) {
    this.version += 1
    nedb._addToIndexes.call(this, doc)
    this.noteArrays([doc])
    this.documentCount += 1
  }
  _removeFromIndexes(doc: Doc) {
    this.version += 1
    nedb._removeFromIndexes.call(this, doc)
    this.documentCount -= 1
  }
}
