// The embedded engine reads a data file at start exactly as NeDB's own loader does (its fast line parser is only
// faster): later lines of an `_id` replace earlier ones, `$$deleted` removes, index declarations are kept, dates
// come back as dates, a few unreadable lines are skipped and too many refuse the load.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import NeDB from '@seald-io/nedb'
import { readDataLines } from '../../src/store/engines/nedb/load'
import { IndexedNeDB } from '../../src/store/engines/nedb/candidates'
import { tempDir } from '../helpers/app'

const lines = [
  JSON.stringify({ _id: 'a', id: 'a', name: 'first', tags: ['x'], at: { $$date: 1700000000000 } }),
  JSON.stringify({ $$indexCreated: { fieldName: 'id', unique: true } }),
  JSON.stringify({
    _id: 'b',
    id: 'b',
    nested: { deep: [1, { two: 2 }] },
    text: 'has $$date inside a string'
  }),
  JSON.stringify({ _id: 'a', id: 'a', name: 'second' }),
  JSON.stringify({ $$indexCreated: { fieldName: 'name', sparse: true } }),
  JSON.stringify({ _id: 'c', id: 'c', name: 'gone' }),
  JSON.stringify({ _id: 'c', $$deleted: true }),
  JSON.stringify({ $$indexRemoved: 'name' }),
  '',
  JSON.stringify({ _id: 'd', id: 'd', 'weird key': null, list: [], when: { $$date: 0 } }),
  JSON.stringify({ _id: 'c', id: 'c', name: 'back' })
]

/** What NeDB's own loader makes of a file, and what the engine's does. */
const bothReads = async (file: string, threshold = 0.1) => {
  const nedb = new NeDB({ filename: file, corruptAlertThreshold: threshold }) as any
  const theirs = await nedb.persistence
    .treatRawStreamAsync(fs.createReadStream(file, { encoding: 'utf8' }))
    .then(
      (value: unknown) => ({ value }),
      (error: Error) => ({ error: error.message })
    )
  const ours = await readDataLines(
    fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 64 }),
    threshold
  ).then(
    (value) => ({ value }),
    (error: Error) => ({ error: error.message })
  )
  return { theirs, ours }
}

describe('embedded engine: loading a data file', () => {
  const dir = tempDir()
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('reads documents, replacements, removals, index declarations and dates as NeDB does (lines split across chunks)', async () => {
    const file = path.join(dir, 'mixed.db')
    fs.writeFileSync(file, lines.join('\n') + '\n')
    const { theirs, ours } = await bothReads(file)
    assert.deepEqual(ours, theirs)
    const docs = (ours as { value: { data: any[] } }).value.data
    assert.deepEqual(
      docs.map((doc) => doc._id),
      ['a', 'b', 'd', 'c']
    )
    assert.ok(docs[2].when instanceof Date)
    assert.equal(docs[1].text, 'has $$date inside a string')
  })

  it("skips a few unreadable lines and refuses a file with too many, with NeDB's message", async () => {
    const few = path.join(dir, 'few.db')
    fs.writeFileSync(few, [...lines, '{"_id":"e", torn'].join('\n'))
    const fewReads = await bothReads(few)
    assert.deepEqual(fewReads.ours, fewReads.theirs)
    assert.equal((fewReads.ours as { value: { data: unknown[] } }).value.data.length, 4)

    const many = path.join(dir, 'many.db')
    fs.writeFileSync(many, [lines[0], 'not json', '{"also": broken', lines[2]].join('\n') + '\n')
    const manyReads = await bothReads(many)
    assert.deepEqual(manyReads.ours, manyReads.theirs)
    assert.match((manyReads.ours as { error: string }).error, /50% of the data file is corrupt/)
  })
})

describe('embedded engine: indexes filled at load', () => {
  const dir = tempDir()
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  // 5,000 documents: unique string ids, a repeated string key (insertion order matters within a key), a nested
  // key, a numeric field and a sometimes-missing field (those two are filled NeDB's own way).
  const docs = Array.from({ length: 5000 }, (_, i) => ({
    _id: `doc-${(i * 7919) % 5000}`.padEnd(12, 'x'),
    id: `id-${String((i * 104729) % 5000).padStart(5, '0')}`,
    facility: `facility-${i % 37}`,
    ref: { id: `ref-${i % 101}` },
    amount: i % 13,
    ...(i % 3 === 0 ? { optional: `o-${i}` } : {})
  }))
  const indexLines = [
    { fieldName: 'id', unique: true },
    { fieldName: 'facility' },
    { fieldName: 'ref.id' },
    { fieldName: 'amount' },
    { fieldName: 'optional', sparse: true }
  ].map(($$indexCreated) => JSON.stringify({ $$indexCreated }))

  it("answers every query as NeDB's own load does, with valid balanced trees", async () => {
    const file = path.join(dir, 'indexed.db')
    fs.writeFileSync(file, [...indexLines, ...docs.map((doc) => JSON.stringify(doc))].join('\n') + '\n')
    // (copied first: NeDB rewrites the file it loads)
    fs.copyFileSync(file, path.join(dir, 'indexed-copy.db'))
    const plain = new NeDB({ filename: file })
    await plain.loadDatabaseAsync()
    const ours = new IndexedNeDB({ filename: path.join(dir, 'indexed-copy.db') })
    await ours.loadDatabaseAsync()
    const indexes = (ours as any).indexes as Record<
      string,
      { tree: { checkIsAVLT(): void; tree: { height: number } } }
    >
    assert.deepEqual(Object.keys(indexes).sort(), ['_id', 'amount', 'facility', 'id', 'optional', 'ref.id'])
    for (const [name, index] of Object.entries(indexes)) {
      index.tree.checkIsAVLT()
      assert.ok(index.tree.tree.height <= 15, `${name}: height ${index.tree.tree.height}`)
    }
    const queries = [
      {},
      { id: 'id-00042' },
      { id: { $in: ['id-00001', 'id-04999', 'nope'] } },
      { facility: 'facility-5' },
      { 'ref.id': { $in: ['ref-3', 'ref-100'] } },
      { _id: { $gt: 'doc-4990', $lte: 'doc-5' } },
      { amount: 4, facility: 'facility-1' },
      { optional: { $exists: true }, facility: 'facility-2' }
    ]
    // (an unsorted find's order depends on the candidate selection, which differs by design: compared by _id)
    const byId = (list: any[]) => [...list].sort((a, b) => (a._id < b._id ? -1 : 1))
    for (const query of queries) {
      const expected = await plain.findAsync(query)
      const found = await ours.findAsync(query)
      assert.ok(found.length > 0 || JSON.stringify(query).includes('nope'))
      assert.deepEqual(byId(found), byId(expected), JSON.stringify(query))
    }
    // Within one key of a non-unique index, documents keep their load order, as with NeDB's inserts.
    const plainIndexes = (plain as any).indexes
    for (const [field, value] of [
      ['facility', 'facility-5'],
      ['ref.id', 'ref-7'],
      ['amount', 3]
    ] as const) {
      assert.deepEqual(
        (ours as any).indexes[field].getMatching(value),
        plainIndexes[field].getMatching(value),
        field
      )
    }
    // A unique key repeated in the file refuses the load as NeDB does.
    const broken = path.join(dir, 'broken.db')
    fs.writeFileSync(
      broken,
      [
        ...indexLines,
        ...docs.map((doc) => JSON.stringify(doc)),
        JSON.stringify({ ...docs[0], _id: 'another' })
      ].join('\n') + '\n'
    )
    await assert.rejects(
      new IndexedNeDB({ filename: broken }).loadDatabaseAsync(),
      (error: any) => error.errorType === 'uniqueViolated' && error.key === docs[0].id
    )
  })
})
