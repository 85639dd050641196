import assert from 'node:assert/strict'
import NeDB from '@seald-io/nedb'
import { IndexedNeDB, indexedCandidates } from '../../src/store/nedb-candidates'

// The same documents in plain NeDB (full scans) and in IndexedNeDB: every query must answer the same.
describe('store: NeDB candidates from indexes', () => {
  const plain = new NeDB({ inMemoryOnly: true })
  const indexed = new IndexedNeDB({ inMemoryOnly: true })
  const people = ['u1', 'u2', 'u3', 'u4']
  const organizations = ['o1', 'o2', 'o3']

  before(async () => {
    for (const fieldName of ['id', 'createdBy', 'patient', 'permissions.uid', 'permissions.organization']) {
      await indexed.ensureIndexAsync({ fieldName, unique: fieldName === 'id' })
    }
    const docs: any[] = []
    for (let i = 0; i < 600; i++) {
      const permissions: any[] = []
      if (i % 3 === 0) permissions.push({ uid: people[i % 4], roles: [], privileges: [], write: i % 2 === 0, share: false })
      if (i % 5 === 0) permissions.push({ organization: organizations[i % 3], roles: i % 2 ? ['doctor'] : [], privileges: [], write: false, share: i % 4 === 0 })
      if (i % 7 === 0) permissions.push({ organization: organizations[(i + 1) % 3], roles: [], privileges: ['lab'], write: true, share: true })
      docs.push({ id: `r${i}`, createdBy: people[i % 4], patient: `p${i % 10}`, n: i, tags: i % 2 ? ['a', 'b'] : ['c'], permissions })
    }
    await plain.insertAsync(docs.map((d) => structuredClone(d)))
    await indexed.insertAsync(docs.map((d) => structuredClone(d)))
  })

  const access = (uid: string, orgs: string[]) => ({
    $or: [
      { createdBy: uid },
      { permissions: { $elemMatch: { uid } } },
      { permissions: { $elemMatch: { organization: { $in: orgs }, roles: { $size: 0 }, privileges: { $size: 0 } } } },
      { permissions: { $elemMatch: { organization: orgs[0], roles: { $in: ['doctor'] }, write: true } } }
    ]
  })

  const queries: [string, any][] = [
    ['an access $or inside $and', { $and: [access('u1', ['o1', 'o2'])] }],
    ['an access $or next to an indexed field', { patient: 'p3', $and: [access('u2', ['o3'])] }],
    ['an id inside $and (how get/patch/remove ask)', { $and: [access('u3', ['o1']), { id: 'r42' }] }],
    ['$in on an indexed field', { createdBy: { $in: ['u1', 'u4'] }, n: { $gte: 100 } }],
    ['$elemMatch with flags', { permissions: { $elemMatch: { uid: 'u2', write: true } } }],
    ['an $or with one unindexed branch (falls back)', { $or: [{ createdBy: 'u1' }, { n: { $lt: 10 } }] }],
    ['an unindexed field only', { n: { $gt: 590 } }],
    ['an array field', { tags: 'b', patient: 'p1' }],
    ['a value no document has', { $and: [{ id: 'nope' }] }],
    ['nothing', {}]
  ]

  for (const [name, query] of queries) {
    it(`answers ${name} exactly like a full scan`, async () => {
      const expected = (await plain.findAsync(query)).map((d: any) => d.id).sort()
      const actual = (await indexed.findAsync(query)).map((d: any) => d.id).sort()
      assert.deepEqual(actual, expected)
      assert.equal(await indexed.countAsync(query), expected.length)
    })
  }

  it('examines only the indexed candidates for an access-scoped query, and all documents when no index applies', () => {
    const indexes = (indexed as any).indexes
    const scoped = indexedCandidates(indexes, { $and: [access('u1', ['o1'])] })
    assert.ok(scoped && scoped.length < 600 && scoped.length > 0, `candidates: ${scoped?.length}`)
    assert.equal(indexedCandidates(indexes, { $and: [{ id: 'r7' }] })?.length, 1)
    assert.equal(indexedCandidates(indexes, { $or: [{ createdBy: 'u1' }, { n: 3 }] }), null)
  })

  it('keeps indexed candidates current through updates and removals', async () => {
    for (const db of [plain, indexed] as NeDB[]) {
      await db.updateAsync({ id: 'r1' }, { $set: { permissions: [{ uid: 'u9', roles: [], privileges: [], write: false, share: false }] } }, {})
      await db.removeAsync({ $and: [{ id: 'r3' }] }, {})
    }
    for (const query of [{ permissions: { $elemMatch: { uid: 'u9' } } }, { $and: [{ id: 'r3' }] }, { $and: [access('u2', ['o2'])] }]) {
      assert.deepEqual((await indexed.findAsync(query)).map((d: any) => d.id).sort(), (await plain.findAsync(query)).map((d: any) => d.id).sort())
    }
  })
})
