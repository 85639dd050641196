import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import NeDB from '@seald-io/nedb'
import { BulkLoadedNeDB, bulkBuildIndex, type BulkIndex } from '../../src/store/engines/nedb/bulk-index'
import { IndexedNeDB } from '../../src/store/engines/nedb/candidates'
import { tempDir } from '../helpers/app'

// A load fills its indexes in bulk; each index must be exactly the tree NeDB's one-at-a-time inserts build: the
// same keys in the same order, the same documents per key in the same order, a valid AVL tree that later inserts
// and removals keep working on.
interface Node {
  key?: unknown
  data: unknown[]
  left?: Node | null
  right?: Node | null
}
const entries = (node: Node | null | undefined, out: [unknown, unknown[]][] = []) => {
  if (!node) return out
  entries(node.left, out)
  if (node.data.length > 0) out.push([node.key, node.data])
  entries(node.right, out)
  return out
}
type Index = BulkIndex & { tree: { tree: Node; checkIsAVLT(): void } }

const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

/** Documents of every key kind an index meets here: strings, numbers, booleans, null, missing, arrays. */
const documents = (count: number) => {
  const next = random(3)
  const pick = <T>(values: T[]) => values[Math.floor(next() * values.length)]
  return Array.from({ length: count }, (_, i) => {
    const doc: Record<string, unknown> = { _id: `id-${(i * 7919) % count}`.padEnd(12, 'x'), id: `r${i}` }
    const kind = pick(['string', 'number', 'boolean', 'null', 'missing'])
    if (kind === 'string') doc.mixed = pick(['a', 'b', 'B', 'é', '10', ''])
    if (kind === 'number') doc.mixed = pick([0, -1, 2.5, 10, 1e9])
    if (kind === 'boolean') doc.mixed = next() < 0.5
    if (kind === 'null') doc.mixed = null
    doc.author = `u${Math.floor(next() * 30)}`
    const permissions: Record<string, unknown>[] = []
    for (let k = Math.floor(next() * 4); k > 0; k--)
      permissions.push(next() < 0.7 ? { uid: pick(['u1', 'u2', 'u3', 'u1']) } : { organization: 'o1' })
    if (next() < 0.9) doc.permissions = permissions
    if (next() < 0.2) doc.tags = pick([[], ['x', 'x', 'y'], [1, '1', null], ['z']])
    return doc
  })
}

const nedbIndex = (fieldName: string | string[], options: { unique?: boolean; sparse?: boolean } = {}) => {
  const db = new NeDB({ inMemoryOnly: true }) as unknown as { indexes: Record<string, Index> }
  const store = db as unknown as NeDB
  void store.ensureIndexAsync({ fieldName, ...options })
  return db.indexes[[fieldName].flat().join(',')]
}

describe('store: bulk-built indexes', () => {
  const docs = documents(3000)

  for (const [field, options] of [
    ['_id', { unique: true }],
    ['id', { unique: true }],
    ['author', {}],
    ['mixed', {}],
    ['mixed', { sparse: true }],
    ['permissions.uid', {}],
    ['permissions.uid', { sparse: true }],
    ['permissions.organization', {}],
    ['tags', {}],
    ['tags', { sparse: true }]
  ] as const) {
    it(`builds ${field} ${JSON.stringify(options)} as NeDB's inserts do`, () => {
      const theirs = nedbIndex(field, options)
      theirs.reset(docs)
      const ours = nedbIndex(field, options)
      const arrays = { held: false }
      assert.equal(bulkBuildIndex(ours, docs, arrays), true)
      assert.deepEqual(entries(ours.tree.tree), entries(theirs.tree.tree))
      ours.tree.checkIsAVLT()
      assert.equal(
        arrays.held,
        docs.some((doc) => Array.isArray(field.startsWith('permissions') ? doc.permissions : doc[field]))
      )
      // Later writes go through NeDB's own tree operations.
      const extra = { _id: 'zz-extra', id: 'r-extra', author: 'u1', mixed: 'a', permissions: [{ uid: 'u9' }] }
      ;(ours as unknown as { insert(doc: unknown): void }).insert(extra)
      ;(ours as unknown as { remove(doc: unknown): void }).remove(docs[5])
      ours.tree.checkIsAVLT()
    })
  }

  it('leaves repeated unique keys, dates, objects and compound indexes to NeDB', () => {
    const repeated = [...docs, { ...docs[0], _id: 'another' }]
    assert.equal(bulkBuildIndex(nedbIndex('id', { unique: true }), repeated, { held: false }), false)
    const dated = [...docs, { _id: 'dated', at: new Date(0) }]
    assert.equal(bulkBuildIndex(nedbIndex('at'), dated, { held: false }), false)
    const nested = [...docs, { _id: 'nested', tags: [['x']] }]
    assert.equal(bulkBuildIndex(nedbIndex('tags'), nested, { held: false }), false)
    assert.equal(bulkBuildIndex(nedbIndex(['author', 'id']), docs, { held: false }), false)
  })

  it('loads a data file to the same answers as the one-at-a-time load', async () => {
    const dir = tempDir()
    try {
      const file = path.join(dir, 'records.db')
      const lines = docs.map((doc) => JSON.stringify(doc))
      lines.push(JSON.stringify({ $$indexCreated: { fieldName: 'author' } }))
      lines.push(JSON.stringify({ $$indexCreated: { fieldName: 'permissions.uid' } }))
      lines.push(JSON.stringify({ $$indexCreated: { fieldName: 'id', unique: true } }))
      lines.push(JSON.stringify({ $$indexCreated: { fieldName: 'mixed' } }))
      fs.writeFileSync(file, lines.join('\n') + '\n')
      // (each on its own copy: a datastore without the engine's commit log rewrites its file after loading it)
      for (const copy of ['bulk', 'single', 'plain']) fs.copyFileSync(file, `${file}.${copy}`)
      const bulk = new BulkLoadedNeDB({ filename: `${file}.bulk` })
      // The previous load path (IndexedNeDB's own), and NeDB's own one-at-a-time load of a copy (it rewrites its file).
      const single = new IndexedNeDB({ filename: `${file}.single` })
      const plain = new NeDB({ filename: `${file}.plain` })
      await plain.loadDatabaseAsync()
      await bulk.loadDatabaseAsync()
      await single.loadDatabaseAsync()
      for (const field of Object.keys(single.indexes))
        assert.deepEqual(
          entries((bulk.indexes[field] as unknown as Index).tree.tree),
          entries((single.indexes[field] as unknown as Index).tree.tree),
          field
        )
      for (const [field, index] of Object.entries(
        (plain as unknown as { indexes: Record<string, Index> }).indexes
      ))
        assert.deepEqual(
          entries((bulk.indexes[field] as unknown as Index).tree.tree),
          entries(index.tree.tree),
          field
        )
      assert.deepEqual([...bulk.arrayFields].sort(), ['permissions.uid'])
      assert.equal(bulk.documentCount, docs.length)
      for (const query of [
        { author: 'u3' },
        { 'permissions.uid': 'u2' },
        { $or: [{ author: 'u1' }, { permissions: { $elemMatch: { uid: 'u1' } } }] },
        { mixed: null },
        { mixed: { $gt: 1 } }
      ]) {
        const sort = { id: 1 }
        assert.deepEqual(
          await bulk.findAsync(query).sort(sort),
          await single.findAsync(query).sort(sort),
          JSON.stringify(query)
        )
        assert.equal(await bulk.countAsync(query), await single.countAsync(query))
      }
      // Declaring an index that exists changes nothing; a new one is built as before.
      await bulk.ensureIndexAsync({ fieldName: 'author' })
      await bulk.ensureIndexAsync({ fieldName: 'tags' })
      assert.ok(bulk.arrayFields.has('tags'))
      assert.deepEqual(
        await bulk.findAsync({ tags: 'x' }).sort({ id: 1 }),
        docs
          .filter((doc) => Array.isArray(doc.tags) && doc.tags.includes('x'))
          .sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1))
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
