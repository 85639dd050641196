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

type Docs = any[]
type Indexes = Record<string, { getMatching(value: unknown): Docs }>

const isPlainObject = (value: unknown): value is Record<string, any> => !!value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
const isIndexable = (value: unknown) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'

/** Documents an index returns for `value` (a plain value, or `{ $in: [...] }`), or null when it cannot tell. */
const fromIndex = (indexes: Indexes, field: string, value: unknown): Docs | null => {
  const index = indexes[field]
  if (!index) return null
  if (isIndexable(value)) return index.getMatching(value)
  if (isPlainObject(value) && Array.isArray(value.$in) && value.$in.every(isIndexable)) return index.getMatching(value.$in)
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
    if (key === '$and' && Array.isArray(value)) for (const part of value) consider(indexedCandidates(indexes, part, limit()))
  }
  for (const [key, value] of entries) {
    if (key !== '$or' || !Array.isArray(value) || value.length === 0) continue
    const union = new Set<any>()
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

// `_getRawCandidates` is NeDB's (untyped) internal hook used by find, count, update and remove alike.
const nedbCandidates: (this: NeDB, query: any) => Docs = (NeDB.prototype as any)._getRawCandidates

export class IndexedNeDB extends NeDB {
  _getRawCandidates(query: any): Docs {
    return indexedCandidates((this as any).indexes, query) ?? nedbCandidates.call(this, query)
  }
}
