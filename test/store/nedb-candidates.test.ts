import assert from 'node:assert/strict'
import NeDB from '@seald-io/nedb'
import { IndexedNeDB, indexedCandidates, orPlanMatches } from '../../src/store/engines/nedb/candidates'

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
      if (i % 3 === 0)
        permissions.push({ uid: people[i % 4], roles: [], privileges: [], write: i % 2 === 0, share: false })
      if (i % 5 === 0)
        permissions.push({
          organization: organizations[i % 3],
          roles: i % 2 ? ['doctor'] : [],
          privileges: [],
          write: false,
          share: i % 4 === 0
        })
      if (i % 7 === 0)
        permissions.push({
          organization: organizations[(i + 1) % 3],
          roles: [],
          privileges: ['lab'],
          write: true,
          share: true
        })
      // `k`: numbers with ties and negatives; `m`: a number in most documents, a string or missing in some.
      const m = i % 11 === 0 ? String(i) : i % 13 === 0 ? undefined : (i % 17) - 8.5
      docs.push({
        id: `r${i}`,
        createdBy: people[i % 4],
        patient: `p${i % 10}`,
        n: i,
        k: (i % 17) - 8.5,
        ...(m === undefined ? {} : { m }),
        tags: i % 2 ? ['a', 'b'] : ['c'],
        permissions
      })
    }
    // A document whose `permissions` is an object: indexed under permissions.uid, yet no `$elemMatch` matches it.
    docs.push({
      id: 'r-object',
      createdBy: 'u5',
      patient: 'p0',
      n: 1000,
      tags: [],
      permissions: { uid: 'u-object' }
    })
    await plain.insertAsync(docs.map((d) => structuredClone(d)))
    await indexed.insertAsync(docs.map((d) => structuredClone(d)))
  })

  const access = (uid: string, orgs: string[]) => ({
    $or: [
      { createdBy: uid },
      { permissions: { $elemMatch: { uid } } },
      {
        permissions: {
          $elemMatch: { organization: { $in: orgs }, roles: { $size: 0 }, privileges: { $size: 0 } }
        }
      },
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

  it('examines only the indexed candidates for an access-scoped query, and all documents when no index applies', async () => {
    const indexes = (indexed as any).indexes
    const scoped = indexedCandidates(indexes, { $and: [access('u1', ['o1'])] })
    assert.ok(scoped && scoped.length < 600 && scoped.length > 0, `candidates: ${scoped?.length}`)
    assert.equal(indexedCandidates(indexes, { $and: [{ id: 'r7' }] })?.length, 1)
    assert.equal(indexedCandidates(indexes, { $or: [{ createdBy: 'u1' }, { n: 3 }] }), null)
    // The access query is answered by the `$or` plan (union of the branches' index sets), not a scan.
    const planned = orPlanMatches(indexes, { $and: [access('u1', ['o1'])] })
    assert.ok(planned, 'the $or plan applies to the access query')
    assert.equal(planned.length, (await plain.findAsync({ $and: [access('u1', ['o1'])] })).length)
    assert.equal(
      orPlanMatches(indexes, { $or: [{ createdBy: 'u1' }, { n: 3 }] }),
      null,
      'an unindexed branch: no plan'
    )
  })

  it('keeps indexed candidates current through updates and removals', async () => {
    for (const db of [plain, indexed] as NeDB[]) {
      await db.updateAsync(
        { id: 'r1' },
        { $set: { permissions: [{ uid: 'u9', roles: [], privileges: [], write: false, share: false }] } },
        {}
      )
      await db.removeAsync({ $and: [{ id: 'r3' }] }, {})
    }
    for (const query of [
      { permissions: { $elemMatch: { uid: 'u9' } } },
      { $and: [{ id: 'r3' }] },
      { $and: [access('u2', ['o2'])] }
    ]) {
      assert.deepEqual(
        (await indexed.findAsync(query)).map((d: any) => d.id).sort(),
        (await plain.findAsync(query)).map((d: any) => d.id).sort()
      )
    }
  })

  it('answers a repeated access-scoped query anew after every kind of write', async () => {
    const query = { $and: [access('u4', ['o3'])] }
    const page = { $and: [access('u4', ['o3'])], n: { $gte: 0 } }
    const same = async (step: string) => {
      for (const q of [query, page]) {
        assert.deepEqual(
          (await indexed.findAsync(q).sort({ n: -1 }).limit(5)).map((d: any) => d.id),
          (await plain.findAsync(q).sort({ n: -1 }).limit(5)).map((d: any) => d.id),
          step
        )
        assert.equal(await indexed.countAsync(q), await plain.countAsync(q), step)
      }
    }
    await same('first')
    await same('repeated')
    const grant = { uid: 'u4', roles: [], privileges: [], write: false, share: false }
    for (const [step, write] of [
      ['insert', (db: NeDB) => db.insertAsync({ id: 'c1', createdBy: 'u1', n: 5000, permissions: [grant] })],
      [
        'update',
        (db: NeDB) => db.updateAsync({ id: 'c1' }, { $set: { permissions: [], createdBy: 'u2' } }, {})
      ],
      ['update back', (db: NeDB) => db.updateAsync({ id: 'c1' }, { $set: { createdBy: 'u4' } }, {})],
      ['remove', (db: NeDB) => db.removeAsync({ id: 'c1' }, {})]
    ] as [string, (db: NeDB) => Promise<unknown>][]) {
      for (const db of [plain, indexed] as NeDB[]) await write(db)
      await same(step)
    }
    // A refused insert (a repeated unique id) leaves the answer as it was.
    await assert.rejects(indexed.insertAsync([{ id: 'c2', createdBy: 'u4', n: 6000 }, { id: 'r0' }]))
    await same('refused insert')
  })

  // Index-exact conjunctions (no generic matcher), ordered index walks, pick-projections: same answers as NeDB's own.
  describe('exact conjunctions, sorted pages and projections', () => {
    const sorts: [string, any, any, { skip?: number; limit?: number; projection?: any }][] = [
      ['an exact conjunction', { createdBy: 'u1', tags: 'b' }, undefined, {}],
      [
        'an exact $and with $in',
        { $and: [{ createdBy: { $in: ['u1', 'u2'] } }, { patient: { $in: ['p1', 'p2', 'p3'] } }] },
        undefined,
        {}
      ],
      ['a sorted page over everything (index walk)', {}, { patient: 1, id: 1 }, { skip: 3, limit: 7 }],
      ['a sorted page of a large set', { tags: 'c' }, { patient: 1, id: 1 }, { skip: 0, limit: 5 }],
      [
        'a sorted page of a small set (sorted, not walked)',
        { patient: 'p4', createdBy: 'u4' },
        { patient: 1, id: 1 },
        { skip: 1, limit: 3 }
      ],
      ['a descending sort', { tags: 'b' }, { patient: -1, id: 1 }, { limit: 4 }],
      ['a sort on an unindexed field', {}, { n: -1 }, { skip: 2, limit: 3 }],
      ['a sort on numbers with ties, then id', { createdBy: 'u2' }, { k: -1, id: 1 }, { skip: 4, limit: 30 }],
      [
        'a sort on a field that is a number, a string or missing',
        {},
        { m: 1, id: -1 },
        { skip: 40, limit: 100 }
      ],
      [
        'a descending sort on a field that is a number, a string or missing',
        { tags: 'c' },
        { m: -1, n: 1 },
        {}
      ],
      ['skip and limit without sort', { createdBy: 'u3' }, undefined, { skip: 5, limit: 5 }],
      ['a pick-projection', { createdBy: 'u2' }, { id: 1 }, { projection: { id: 1, patient: 1 } }],
      [
        'a pick-projection without _id',
        { $and: [{ tags: 'c' }] },
        { id: 1 },
        { limit: 3, projection: { id: 1, tags: 1, _id: 0 } }
      ],
      ['a value of no document', { createdBy: 'nobody', tags: 'c' }, { id: 1 }, {}],
      ['numbers do not match strings', { patient: { $in: ['p1', 1] } }, { id: 1 }, {}],
      // Access-scoped `$or` plans (union of branch candidates, exact branches unchecked, the rest matched).
      [
        'a newest-first page of an access $or',
        { $and: [access('u1', ['o1', 'o2'])] },
        { n: -1 },
        { limit: 20 }
      ],
      ['a second page of an access $or', { $and: [access('u2', ['o3'])] }, { n: -1 }, { skip: 5, limit: 5 }],
      [
        'an access $or with an indexed field beside it',
        { patient: 'p3', $and: [access('u3', ['o1'])] },
        { n: 1 },
        { limit: 3 }
      ],
      [
        'an access $or with an unindexed condition beside it',
        { n: { $gte: 300 }, $and: [access('u4', ['o2'])] },
        { n: -1 },
        {}
      ],
      [
        'an $or of exact branches',
        { $or: [{ createdBy: 'u1' }, { patient: { $in: ['p2', 'p5'] } }] },
        { n: -1 },
        { limit: 10 }
      ],
      [
        'an $or of $elemMatch branches with flags',
        {
          $or: [
            { permissions: { $elemMatch: { uid: 'u2', write: true } } },
            { permissions: { $elemMatch: { organization: 'o1' } } }
          ]
        },
        { n: 1 },
        {}
      ],
      [
        'two $or parts',
        {
          $and: [
            { $or: [{ createdBy: 'u1' }, { createdBy: 'u2' }] },
            { $or: [{ patient: 'p1' }, { permissions: { $elemMatch: { uid: 'u1' } } }] }
          ]
        },
        { n: 1 },
        {}
      ],
      [
        'an $elemMatch branch where the field is an object, not an array',
        { $or: [{ permissions: { $elemMatch: { uid: 'u-object' } } }, { createdBy: 'nobody' }] },
        { n: 1 },
        {}
      ]
    ]
    const run = (db: NeDB, query: any, sort: any, o: { skip?: number; limit?: number; projection?: any }) => {
      let cursor: any = db.findAsync(query, o.projection ?? {})
      if (sort) cursor = cursor.sort(sort)
      if (o.skip) cursor = cursor.skip(o.skip)
      if (o.limit) cursor = cursor.limit(o.limit)
      return cursor
    }
    for (const [name, query, sort, options] of sorts) {
      it(`answers ${name} exactly like NeDB`, async () => {
        const expected = await run(plain, query, sort, options)
        const actual = await run(indexed, query, sort, options)
        const strip = (docs: any[]) =>
          docs.map(({ _id, ...rest }: any) => ({ ...rest, hasId: _id !== undefined }))
        if (sort) assert.deepEqual(strip(actual), strip(expected))
        // (without a sort, which documents make a page is the engine's choice: only its size is fixed)
        else if (options.skip || options.limit) assert.equal(actual.length, expected.length)
        else
          assert.deepEqual(
            strip(actual)
              .map((d: any) => JSON.stringify(d))
              .sort(),
            strip(expected)
              .map((d: any) => JSON.stringify(d))
              .sort()
          )
        assert.equal(await indexed.countAsync(query), await plain.countAsync(query))
      })
    }
    it('counts everything without a walk, and the count follows inserts, removals and refused inserts', async () => {
      assert.equal(await indexed.countAsync({}), await plain.countAsync({}))
      for (const db of [plain, indexed] as NeDB[]) {
        await db.insertAsync([{ id: 'extra-1' }, { id: 'extra-2' }])
        await db.removeAsync({ id: 'extra-1' }, {})
      }
      await assert.rejects(indexed.insertAsync([{ id: 'extra-3' }, { id: 'extra-2' }]))
      assert.equal(await indexed.countAsync({}), await plain.countAsync({}))
      assert.equal(await indexed.countAsync({}), indexed.getAllData().length)
    })

    it('returns copies: changing a result does not change the store', async () => {
      const [doc] = await indexed.findAsync({ createdBy: 'u1' }, { id: 1, tags: 1 })
      doc.tags.push('changed')
      const [again] = await indexed.findAsync({ id: doc.id })
      assert.ok(!again.tags.includes('changed'))
    })
  })
})
