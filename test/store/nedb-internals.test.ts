// The embedded engine overrides and calls private internals of @seald-io/nedb (src/store/engines/nedb/): the
// candidate selection, index bookkeeping, cursor and matcher (candidates.ts, match.ts), the persistence and executor
// of a datastore (commit.ts), its loader (load.ts) and line format (journal.ts, repair.ts). Each was written for
// the pinned NeDB version; these checks fail when the installed one differs, or when an internal the engine touches
// changed shape: it is missing, its arity changed, or — where the engine copies, replaces or relies on a body — its
// source text no longer hashes as it did in that version. On a failure: read what changed in NeDB, adapt the
// override, then record the new values here.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { NEDB_VERSION } from '../../src/store/engines/nedb/match'

const root = path.resolve(__dirname, '../..')
const nedbRequire = createRequire(require.resolve('@seald-io/nedb'))

type Fn = (...args: unknown[]) => unknown
type Module = Record<string, Fn> & { prototype: Record<string, Fn> }

/** A module of NeDB as it loads, even when this process already replaced one of its exports (`model.match`). */
const pristine = (file: string): Module => {
  const key = nedbRequire.resolve(file)
  const cached = require.cache[key]
  delete require.cache[key]
  try {
    return nedbRequire(file)
  } finally {
    if (cached) require.cache[key] = cached
  }
}

const Datastore = pristine('./lib/datastore.js')
const Persistence = pristine('./lib/persistence.js')
const Executor = pristine('./lib/executor.js')
const Cursor = pristine('./lib/cursor.js')
const Index = pristine('./lib/indexes.js')
const model = pristine('./lib/model.js')

const hashOf = (fn: Fn) => crypto.createHash('sha256').update(fn.toString()).digest('hex').slice(0, 16)

/**
 * Each internal the engine touches in @seald-io/nedb 4.1.2: how it is reached, its arity (`length`) and the hash of
 * its source text (the first 16 hex digits of its SHA-256).
 */
const expected: [name: string, fn: () => Fn | undefined, arity: number, hash: string][] = [
  // candidates.ts: IndexedNeDB calls NeDB's own candidate selection with the usable part of a query, and its cursor
  // scan takes NeDB's candidates (TTL expiry included).
  ['Datastore#_getRawCandidates', () => Datastore.prototype._getRawCandidates, 1, '6ee9acc7e9cc0c06'],
  ['Datastore#_getCandidatesAsync', () => Datastore.prototype._getCandidatesAsync, 1, 'c10f14286657afed'],
  // candidates.ts: IndexedNeDB wraps the index bookkeeping to note array fields and count documents.
  ['Datastore#_updateIndexes', () => Datastore.prototype._updateIndexes, 2, '28547b4a5ce6526b'],
  ['Datastore#_resetIndexes', () => Datastore.prototype._resetIndexes, 1, '88d9ff17fe48c4dd'],
  ['Datastore#_addToIndexes', () => Datastore.prototype._addToIndexes, 1, '5d67dc1efd0711dd'],
  ['Datastore#_removeFromIndexes', () => Datastore.prototype._removeFromIndexes, 1, '9ab717000347ef9a'],
  ['Datastore#ensureIndexAsync', () => Datastore.prototype.ensureIndexAsync, 0, '85609f7ab92a3383'],
  // candidates.ts: findAsync and countAsync are replaced by ones building the indexed cursor.
  ['Datastore#findAsync', () => Datastore.prototype.findAsync, 1, 'ace79af314add5f1'],
  ['Datastore#countAsync', () => Datastore.prototype.countAsync, 1, 'e39c71111c50cefc'],
  // commit.ts: insertAsync, updateAsync and removeAsync are replaced by ones that push the same internal write into
  // the executor and wait for the group commit outside it.
  ['Datastore#insertAsync', () => Datastore.prototype.insertAsync, 1, '4681fa973f851f83'],
  ['Datastore#updateAsync', () => Datastore.prototype.updateAsync, 2, '32cf72273463832c'],
  ['Datastore#removeAsync', () => Datastore.prototype.removeAsync, 1, '9a9efa768ddaec25'],
  ['Datastore#_insertAsync', () => Datastore.prototype._insertAsync, 1, '3ffc185be5fe6586'],
  ['Datastore#_updateAsync', () => Datastore.prototype._updateAsync, 3, '5e252738d39ba661'],
  ['Datastore#_removeAsync', () => Datastore.prototype._removeAsync, 1, '0be3c6121233bf87'],
  ['Datastore#getAllData', () => Datastore.prototype.getAllData, 0, '1c73db8e74844489'],
  // commit.ts: the appends, the rewrite, the load and the line reader of a datastore's persistence are replaced
  // (load.ts reads lines as treatRawStreamAsync does).
  [
    'Persistence#persistNewStateAsync',
    () => Persistence.prototype.persistNewStateAsync,
    1,
    'c1ce32f4a83e5ae3'
  ],
  [
    'Persistence#persistCachedDatabaseAsync',
    () => Persistence.prototype.persistCachedDatabaseAsync,
    0,
    'c18e4f2a76140686'
  ],
  ['Persistence#loadDatabaseAsync', () => Persistence.prototype.loadDatabaseAsync, 0, '092066bec30e3f96'],
  ['Persistence#treatRawStreamAsync', () => Persistence.prototype.treatRawStreamAsync, 1, '8734f43e956797eb'],
  ['Executor#pushAsync', () => Executor.prototype.pushAsync, 1, '2b8f46edf19ab3fd'],
  // candidates.ts: the indexed cursor subclasses lib/cursor.js (its _execAsync replaced; its fields and _project
  // used) and walks lib/indexes.js's trees (bulkResetIndex builds them): both classes whole.
  ['lib/cursor.js Cursor', () => Cursor as unknown as Fn, 3, '7b6f1d6472d4fab1'],
  ['lib/indexes.js Index', () => Index as unknown as Fn, 1, '952921f0a01151cc'],
  // match.ts replaces model.match (called through the module object); candidates.ts uses getDotValue and deepCopy;
  // the journal and the repair write and read lines with serialize and deserialize.
  ['model.match', () => model.match, 2, '11c3a3f6f51b372f'],
  ['model.getDotValue', () => model.getDotValue, 2, 'd46a26ca6572ef20'],
  ['model.deepCopy', () => model.deepCopy, 2, '551b7d66e4d83b11'],
  ['model.serialize', () => model.serialize, 1, '81feef2c778a97b4'],
  ['model.deserialize', () => model.deserialize, 1, '3f978b4f61a259ad']
]

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'))

describe('the embedded engine’s use of NeDB internals', () => {
  it(`is pinned to @seald-io/nedb ${NEDB_VERSION} exactly, in package.json, package-lock.json and node_modules`, () => {
    assert.equal(readJson(path.join(root, 'package.json')).dependencies['@seald-io/nedb'], NEDB_VERSION)
    const lock = readJson(path.join(root, 'package-lock.json'))
    assert.equal(lock.packages[''].dependencies['@seald-io/nedb'], NEDB_VERSION)
    const copies = Object.entries(lock.packages as Record<string, { version: string }>).filter(([where]) =>
      where.endsWith('node_modules/@seald-io/nedb')
    )
    assert.deepEqual(
      copies.map(([where, entry]) => [where, entry.version]),
      [['node_modules/@seald-io/nedb', NEDB_VERSION]]
    )
    assert.equal(nedbRequire('./package.json').version, NEDB_VERSION)
    // (the tree nodes bulkResetIndex builds are this version's)
    assert.equal(nedbRequire('@seald-io/binary-search-tree/package.json').version, '1.0.3')
  })

  for (const [name, reach, arity, hash] of expected) {
    it(`${name} is there, takes ${arity} declared argument(s) and has the source text it had in ${NEDB_VERSION}`, () => {
      const fn = reach()
      assert.equal(typeof fn, 'function', `${name} is missing`)
      assert.equal(fn!.length, arity, `${name}'s arity changed`)
      assert.equal(hashOf(fn!), hash, `${name}'s source changed: check the override that relies on it`)
    })
  }

  it('a datastore, its indexes and tree nodes have the fields the engine reads', async () => {
    const db = new (
      Datastore as unknown as new () => Record<string, unknown> & {
        insertAsync(docs: unknown[]): Promise<unknown>
      }
    )()
    await db.insertAsync([{ a: 1 }, { a: 2 }])
    for (const field of ['indexes', 'ttlIndexes', 'persistence', 'executor']) assert.ok(field in db, field)
    const persistence = db.persistence as Record<string, unknown>
    for (const field of ['inMemoryOnly', 'filename', 'corruptAlertThreshold'])
      assert.ok(field in persistence, field)
    const index = (db.indexes as Record<string, Record<string, unknown>>)._id
    for (const field of ['_fields', 'unique', 'sparse', 'treeOptions', 'tree'])
      assert.ok(field in index, field)
    assert.equal(typeof index.getMatching, 'function')
    assert.equal(typeof index.reset, 'function')
    const node = (index.tree as { tree: Record<string, unknown> }).tree
    for (const field of ['left', 'right', 'parent', 'key', 'data', 'height']) assert.ok(field in node, field)
    assert.ok(Array.isArray(node.data))
  })
})
