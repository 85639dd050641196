// Filling NeDB's indexes with a whole load at once. NeDB inserts each document into each index one at a time (an
// AVL insert: ~20 key comparisons and rebalancing per document, for every index); at start-up, with a million
// documents and ten indexes, that is most of the load's CPU after parsing. Here each index is built as NeDB's inserts
// would leave it — the same keys (NeDB's `getDotValues`: each distinct element of an array value, `undefined` for a
// missing field unless sparse), the same order of keys (NeDB's `compareThings`: undefined, null, numbers, strings,
// booleans), the same documents per key in load order — but by grouping the documents per key in one pass, sorting
// the distinct keys once and building a balanced tree from them. Keys of other kinds (dates, objects, arrays nested in
// arrays), compound indexes and unique indexes with a repeated key are left to NeDB's own inserts (the latter then
// raise NeDB's own error). Relies on @seald-io/nedb 4.1.2's Index and binary-search-tree's AVL node (NEDB_VERSION in
// ./match.ts; test/store/nedb-internals.test.ts and test/store/bulk-index.test.ts fail when they change).
import type NeDB from '@seald-io/nedb'
import { getDotValue } from '@seald-io/nedb/lib/model'
import { IndexedNeDB } from './candidates'

type Doc = Record<string, unknown>

interface TreeNode {
  key?: unknown
  data: Doc[]
  left?: TreeNode | null
  right?: TreeNode | null
  parent?: TreeNode | null
  height?: number
}

/** NeDB's index internals the build uses (untyped in NeDB's typings). */
export interface BulkIndex {
  _fields: string[]
  unique: boolean
  sparse: boolean
  treeOptions: Record<string, unknown>
  tree: { tree: TreeNode }
  reset(docs?: Doc[]): void
}

type Key = string | number | boolean | null | undefined

// NeDB's order of key kinds (model.compareThings).
const rank = (key: Key) =>
  key === undefined ? 0 : key === null ? 1 : typeof key === 'number' ? 2 : typeof key === 'string' ? 3 : 4

const compareKeys = (a: Key, b: Key): number => {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra - rb
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0
}

const isKey = (value: unknown): value is Key =>
  value === undefined ||
  value === null ||
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && !Number.isNaN(value))

/**
 * Fills `index` with `docs` (its tree replaced), reporting in `arrays` whether a document held an array there.
 * Returns false, changing nothing, when the index or a key is of a kind left to NeDB's own inserts.
 */
export const bulkBuildIndex = (index: BulkIndex, docs: Doc[], arrays: { held: boolean }): boolean => {
  if (index._fields.length !== 1) return false
  const field = index._fields[0]
  const dotted = field.includes('.')
  if (index.unique) return uniqueBuild(index, docs, field, dotted, arrays)
  const groups = new Map<Key, Doc[]>()
  const add = (key: Key, doc: Doc) => {
    const list = groups.get(key)
    if (list === undefined) groups.set(key, [doc])
    // (an array repeating a value indexes its document once under it)
    else if (list[list.length - 1] !== doc) list.push(doc)
  }
  let held = false
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]
    const value = dotted ? getDotValue(doc, field) : doc[field]
    if (Array.isArray(value)) {
      held = true
      // (NeDB's sparse index skips an array whose elements are all missing)
      if (index.sparse && value.every((item) => item === undefined)) continue
      for (const item of value) {
        if (!isKey(item)) return false
        add(item, doc)
      }
    } else if (value === undefined && index.sparse) continue
    else if (!isKey(value)) return false
    else add(value, doc)
  }
  // (Array.prototype.sort puts undefined last without comparing it; NeDB orders it first)
  const keys: Key[] = [...groups.keys()].filter((key) => key !== undefined)
  keys.sort(compareKeys)
  if (groups.has(undefined)) keys.unshift(undefined)
  plant(index, keys, (i) => groups.get(keys[i]) as Doc[])
  arrays.held = held
  return true
}

/**
 * A unique index of string keys (`_id`, `id`): the documents sorted by key without grouping (a compacted file is in
 * `_id` order already, which the sort sees in one pass); a repeated key, an array or another kind of key is left to
 * NeDB.
 */
const uniqueBuild = (
  index: BulkIndex,
  docs: Doc[],
  field: string,
  dotted: boolean,
  arrays: { held: boolean }
): boolean => {
  const keys: string[] = new Array(docs.length)
  for (let i = 0; i < docs.length; i++) {
    const value = dotted ? getDotValue(docs[i], field) : docs[i][field]
    if (typeof value !== 'string') return false
    keys[i] = value
  }
  const order = new Array<number>(docs.length)
  for (let i = 0; i < order.length; i++) order[i] = i
  order.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0))
  for (let i = 1; i < order.length; i++) if (keys[order[i]] === keys[order[i - 1]]) return false
  const sorted = order.map((i) => keys[i])
  plant(index, sorted, (i) => [docs[order[i]]])
  arrays.held = false
  return true
}

/** Replaces the index's tree with a balanced one holding `keys` (ascending) and the documents of each. */
const plant = (index: BulkIndex, keys: Key[], docsOf: (i: number) => Doc[]) => {
  const Wrapper = index.tree.constructor as new (options: unknown) => { tree: TreeNode }
  const wrapper = new Wrapper(index.treeOptions)
  const Node = wrapper.tree.constructor as new (options: unknown) => TreeNode
  const build = (lo: number, hi: number, parent: TreeNode | null): TreeNode | null => {
    if (lo > hi) return null
    const mid = (lo + hi) >> 1
    const node = new Node(index.treeOptions)
    node.parent = parent
    node.key = keys[mid]
    node.data = docsOf(mid)
    node.left = build(lo, mid - 1, node)
    node.right = build(mid + 1, hi, node)
    node.height = 1 + Math.max(node.left?.height ?? 0, node.right?.height ?? 0)
    return node
  }
  const root = build(0, keys.length - 1, null)
  if (root) wrapper.tree = root
  index.tree = wrapper
}

/** Below this many documents a load fills indexes one document at a time (the bulk build's set-up is not worth it). */
const BULK_FROM = 1000

/**
 * The engine's datastore: IndexedNeDB (./candidates.ts) whose loads fill their indexes with `bulkBuildIndex`, and
 * whose re-declaration of an index that exists (every start-up declares its indexes again) is free.
 */
export class BulkLoadedNeDB extends IndexedNeDB {
  _resetIndexes(newData?: Doc | Doc[]) {
    if (!Array.isArray(newData) || newData.length < BULK_FROM) return super._resetIndexes(newData)
    const all = this.indexes
    const built = new Set<string>()
    const arrayFields: string[] = []
    for (const [field, index] of Object.entries(all)) {
      const arrays = { held: false }
      if (!bulkBuildIndex(index as unknown as BulkIndex, newData, arrays)) continue
      built.add(field)
      if (arrays.held) arrayFields.push(field)
    }
    // The rest NeDB's way (through IndexedNeDB's own reset, which also counts the documents and notes array fields).
    this.indexes = Object.fromEntries(Object.entries(all).filter(([field]) => !built.has(field)))
    try {
      super._resetIndexes(newData)
    } finally {
      this.indexes = all
    }
    for (const field of arrayFields) this.arrayFields.add(field)
  }

  async ensureIndexAsync(options: NeDB.EnsureIndexOptions): Promise<void> {
    // (NeDB does nothing for an index that exists; its array fields were noted when it was filled)
    const fields = [options.fieldName].flat()
    if (fields.every((field) => typeof field === 'string' && field !== '' && !field.includes(',')))
      if (this.indexes[fields.sort().join(',')]) return
    await super.ensureIndexAsync(options)
  }
}
