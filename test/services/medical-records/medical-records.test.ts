import assert from 'node:assert/strict'
import { startServer, restClient, signUp, type SignedUp, type TestServer } from '../../helpers/app'
import { validRecords, invalidRecords } from '../../fixtures/medical-records'
import {
  medicalRecordTypes,
  type MedicalRecordData
} from '../../../src/services/medical-records/medical-records.schema'

const normalized = (element: Record<string, any>) => ({
  ...(element.uid ? { uid: element.uid } : {}),
  ...(element.organization ? { organization: element.organization } : {}),
  roles: element.roles ?? [],
  privileges: element.privileges ?? [],
  write: element.write ?? false,
  share: element.share ?? false
})

const fieldsOf = (body: any) => (body?.errors ?? []).map((e: any) => e.field)

describe('medical-records', function () {
  let server: TestServer
  let api: ReturnType<typeof restClient>
  let alice: SignedUp
  let bob: SignedUp
  let facility: string

  const countRecords = async () =>
    ((await (server.app.service('medical-records' as any) as any)._find({ paginate: false })) as any[]).length
  const create = async (body: Record<string, any>, who: SignedUp = alice) => {
    const response = await api.post('/medical-records', body, { token: who.token })
    assert.equal(response.status, 200, JSON.stringify(response.body))
    return response.body
  }

  before(async () => {
    server = await startServer()
    api = restClient(server.url)
    alice = await signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } })
    bob = await signUp(server.url)
    facility = alice.organization.id
  })
  after(async () => {
    await server.close()
  })

  describe('create', () => {
    for (const type of medicalRecordTypes) {
      it(`creates a ${type} record over HTTP with status 200 and echoes every field it was sent`, async () => {
        const body = { ...validRecords[type], facility }
        const before = Date.now()
        const response = await api.post('/medical-records', body, { token: alice.token })
        assert.equal(response.status, 200, JSON.stringify(response.body))
        const record = response.body
        assert.match(record.id, /^[0-9a-f]{24}$/)
        assert.equal(record.type, type)
        assert.equal(record.createdBy, alice.account.id)
        assert.ok(record.createdAt >= before && record.createdAt <= Date.now())
        assert.equal(record._id, undefined)
        for (const [key, value] of Object.entries(body) as [string, any][]) {
          if (key === 'permissions') assert.deepEqual(record.permissions, value.map(normalized), key)
          else if (key === 'recommendedProcedures') {
            assert.equal(record[key].length, value.length)
            value.forEach((procedure: any, i: number) => {
              assert.deepEqual({ ...record[key][i], id: undefined }, { ...procedure, id: undefined })
              assert.equal(typeof record[key][i].id, 'string')
              if (procedure.id) assert.equal(record[key][i].id, procedure.id)
              else assert.match(record[key][i].id, /^[0-9a-f]{24}$/)
            })
          } else assert.deepEqual(record[key], value, key)
        }
        const read = await api.get(`/medical-records/${record.id}`, { token: alice.token })
        assert.equal(read.status, 200)
        assert.deepEqual(read.body, record)
      })
    }

    it('stamps classifiedAt/classifiedBy when an ape-report is created with a classification, and not without one', async () => {
      const classified = await create({ ...validRecords['ape-report'], facility })
      assert.equal(classified.classifiedBy, alice.account.id)
      assert.equal(classified.classifiedAt, classified.createdAt)
      const { classification: _c, ...unclassifiedBody } = validRecords['ape-report']
      const unclassified = await create({ ...unclassifiedBody, facility })
      assert.equal(unclassified.classifiedAt, undefined)
      assert.equal(unclassified.classifiedBy, undefined)
    })

    for (const invalid of invalidRecords) {
      it(`refuses ${invalid.name} with a 400 naming '${invalid.field}' and writes nothing`, async () => {
        const before = await countRecords()
        const response = await api.post('/medical-records', { ...invalid.body }, { token: alice.token })
        assert.equal(response.status, 400, JSON.stringify(response.body))
        assert.ok(
          fieldsOf(response.body).includes(invalid.field),
          `expected '${invalid.field}' in ${JSON.stringify(response.body)}`
        )
        assert.ok(response.body.message.includes(invalid.field))
        assert.equal(await countRecords(), before)
      })
    }

    it('refuses finalize: false and a body that is not an object with a 400', async () => {
      const response = await api.post('/medical-records', ['allergy'], { token: alice.token })
      assert.equal(response.status, 400)
      const patchLike = await api.post(
        '/medical-records',
        { ...validRecords.allergy, facility, finalize: false },
        { token: alice.token }
      )
      assert.equal(patchLike.status, 400)
      assert.ok(fieldsOf(patchLike.body).includes('finalize'))
    })

    it('refuses a create without a token (401) and writes nothing', async () => {
      const before = await countRecords()
      const response = await api.post('/medical-records', validRecords.allergy)
      assert.equal(response.status, 401)
      assert.equal(await countRecords(), before)
    })

    it('refuses to file a record under a facility the caller is not a member of (404: it cannot read that organization), but takes it without a facility', async () => {
      const before = await countRecords()
      const foreign = await api.post(
        '/medical-records',
        { ...validRecords.allergy, facility },
        { token: bob.token }
      )
      assert.equal(foreign.status, 404)
      assert.deepEqual(fieldsOf(foreign.body), ['facility'])
      assert.equal(await countRecords(), before)
      const { facility: _f, ...withoutFacility } = validRecords.allergy
      const own = await create(withoutFacility, bob)
      assert.equal(own.createdBy, bob.account.id)
      assert.equal(own.facility, undefined)
    })

    it('creates a record over Socket.IO as well (the 200 is the REST status only)', async () => {
      const { socketClient } = await import('../../helpers/app')
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: alice.token })
        const record = await socket.client
          .service('medical-records')
          .create({ ...validRecords.assessment, facility } as MedicalRecordData)
        assert.equal(record.createdBy, alice.account.id)
        assert.equal(record.type, 'assessment')
        await assert.rejects(
          // @ts-expect-error: an assessment without its required fields (the server says 400 too)
          socket.client.service('medical-records').create({ type: 'assessment' }),
          (error: any) => error.code === 400 && fieldsOf(error).includes('subtype')
        )
      } finally {
        socket.close()
      }
    })
  })

  describe('find and get', () => {
    const patient = `patient-find-${Date.now()}`
    let records: any[]

    before(async () => {
      records = []
      for (const type of ['allergy', 'attachment', 'allergy'] as const)
        records.push(await create({ ...validRecords[type], facility, patient }))
    })

    it('lists the caller’s records in the paginated envelope, filtered and sorted as asked', async () => {
      const response = await api.get(`/medical-records?patient=${patient}&type=allergy&$sort[createdAt]=-1`, {
        token: alice.token
      })
      assert.equal(response.status, 200)
      assert.equal(response.body.total, 2)
      assert.equal(response.body.skip, 0)
      assert.deepEqual(
        response.body.data.map((r: any) => r.id),
        [records[2].id, records[0].id]
      )
      const since = await api.get(
        `/medical-records?patient=${patient}&createdAt[$gte]=${records[1].createdAt}&$sort[createdAt]=1`,
        { token: alice.token }
      )
      assert.deepEqual(
        since.body.data.map((r: any) => r.id),
        records
          .slice(1)
          .map((r) => r.id)
          .filter((id) => records.find((r) => r.id === id).createdAt >= records[1].createdAt)
      )
      const byEncounterAndFacility = await api.get(
        `/medical-records?patient=${patient}&encounter=encounter-1&facility=${facility}`,
        { token: alice.token }
      )
      assert.equal(byEncounterAndFacility.body.total, 3)
    })

    it('applies the configured default and maximum page sizes', async () => {
      const { default: pageDefault, max } = server.app.get('medicalRecords').paginate
      const plain = await api.get('/medical-records', { token: alice.token })
      assert.equal(plain.body.limit, pageDefault)
      const huge = await api.get('/medical-records?$limit=100000', { token: alice.token })
      assert.equal(huge.body.limit, max)
      const one = await api.get(`/medical-records?patient=${patient}&$limit=1`, { token: alice.token })
      assert.equal(one.body.data.length, 1)
      assert.equal(one.body.total, 3)
    })

    it('refuses unknown query fields, operators the client may not use and bad values with a 400 naming them', async () => {
      for (const [query, field] of [
        ['severity=high', 'severity'],
        ['type=x-ray', 'type'],
        ['permissions[$elemMatch][uid]=x', 'permissions'],
        ['createdAt[$gte]=yesterday', 'createdAt.$gte'],
        ['$sort[secret]=1', '$sort.secret']
      ]) {
        const response = await api.get(`/medical-records?${query}`, { token: alice.token })
        assert.equal(response.status, 400, query)
        assert.ok(fieldsOf(response.body).includes(field), `${query}: ${JSON.stringify(response.body)}`)
      }
    })

    it('answers 401 without a token and 404 for an unknown id', async () => {
      assert.equal((await api.get('/medical-records')).status, 401)
      assert.equal((await api.get(`/medical-records/${records[0].id}`)).status, 401)
      assert.equal(
        (await api.get('/medical-records/0123456789abcdef01234567', { token: alice.token })).status,
        404
      )
    })
  })

  describe('patch, finalize, ape-report stamps and remove', () => {
    it('patches fields with the record type’s schema and keeps the server-owned fields', async () => {
      const record = await create({ ...validRecords.allergy, facility })
      const response = await api.patch(
        `/medical-records/${record.id}`,
        { description: 'Hives', startedAt: 1 },
        { token: alice.token }
      )
      assert.equal(response.status, 200)
      assert.equal(response.body.description, 'Hives')
      assert.equal(response.body.startedAt, 1)
      assert.equal(response.body.name, record.name)
      assert.equal(response.body.createdAt, record.createdAt)
      assert.equal(response.body.createdBy, record.createdBy)
    })

    it('refuses patches that change the type, name unknown or server-owned fields, break the schema or are empty (400, nothing changes)', async () => {
      const record = await create({ ...validRecords['ape-report'], facility })
      const cases: [Record<string, any>, string][] = [
        [{ type: 'allergy' }, 'type'],
        [{ severity: 'high' }, 'severity'],
        [{ createdBy: bob.account.id }, 'createdBy'],
        [{ finalizedAt: 1 }, 'finalizedAt'],
        [{ classifiedBy: bob.account.id }, 'classifiedBy'],
        [{ doneAt: 1 }, 'doneAt'],
        [{ id: 'abcdef0123456789abcdef01' }, 'id'],
        [{ providerFeeType: 'fixed' }, 'providerFeeType'],
        [{ data: { values: [{ answer: 1 }] } }, 'data.values.0.id'],
        [{ permissions: [{ write: true }] }, 'permissions.0'],
        [{ finalize: false }, 'finalize'],
        [{ done: 'yes' }, 'done'],
        [{}, '(body)']
      ]
      for (const [body, field] of cases) {
        const response = await api.patch(`/medical-records/${record.id}`, body, { token: alice.token })
        assert.equal(response.status, 400, JSON.stringify(body))
        assert.ok(
          fieldsOf(response.body).includes(field),
          `${JSON.stringify(body)}: ${JSON.stringify(response.body)}`
        )
      }
      const allergy = await create({ ...validRecords.allergy, facility })
      const done = await api.patch(`/medical-records/${allergy.id}`, { done: true }, { token: alice.token })
      assert.equal(done.status, 400)
      assert.ok(fieldsOf(done.body).includes('done'))
      const unchanged = await api.get(`/medical-records/${record.id}`, { token: alice.token })
      assert.deepEqual(unchanged.body, record)
    })

    it('stamps classifiedAt/By when an ape-report’s classification changes and doneAt/By once when it is marked done', async () => {
      const { classification: _c, ...body } = validRecords['ape-report']
      const report = await create({ ...body, facility })
      const classified = await api.patch(
        `/medical-records/${report.id}`,
        { classification: 'class-b' },
        { token: alice.token }
      )
      assert.equal(classified.status, 200)
      assert.equal(classified.body.classification, 'class-b')
      assert.equal(classified.body.classifiedBy, alice.account.id)
      assert.equal(typeof classified.body.classifiedAt, 'number')
      const same = await api.patch(
        `/medical-records/${report.id}`,
        { classification: 'class-b', remarks: undefined, report: 'Fit.' },
        { token: alice.token }
      )
      assert.equal(same.body.classifiedAt, classified.body.classifiedAt)
      const done = await api.patch(`/medical-records/${report.id}`, { done: true }, { token: alice.token })
      assert.equal(done.status, 200)
      assert.equal(done.body.doneBy, alice.account.id)
      assert.equal(typeof done.body.doneAt, 'number')
      assert.equal(done.body.done, undefined)
      const again = await api.patch(`/medical-records/${report.id}`, { done: true }, { token: alice.token })
      assert.equal(again.status, 200)
      assert.equal(again.body.doneAt, done.body.doneAt)
    })

    it('finalizes a record; then it refuses changes and removal (409) but still takes permission changes', async () => {
      const record = await create({ ...validRecords.assessment, facility })
      const finalized = await api.patch(
        `/medical-records/${record.id}`,
        { finalize: true },
        { token: alice.token }
      )
      assert.equal(finalized.status, 200)
      assert.equal(finalized.body.finalizedBy, alice.account.id)
      assert.equal(typeof finalized.body.finalizedAt, 'number')
      assert.equal(finalized.body.finalize, undefined)

      for (const body of [{ text: 'changed' }, { finalize: true }, { text: 'changed', permissions: [] }]) {
        const response = await api.patch(`/medical-records/${record.id}`, body, { token: alice.token })
        assert.equal(response.status, 409, JSON.stringify(body))
      }
      assert.equal((await api.delete(`/medical-records/${record.id}`, { token: alice.token })).status, 409)

      const shared = await api.patch(
        `/medical-records/${record.id}`,
        { permissions: [{ uid: bob.account.id }] },
        { token: alice.token }
      )
      assert.equal(shared.status, 200)
      assert.deepEqual(shared.body.permissions, [normalized({ uid: bob.account.id })])
      assert.equal(shared.body.text, record.text)
      assert.equal(shared.body.finalizedAt, finalized.body.finalizedAt)
      assert.equal((await api.get(`/medical-records/${record.id}`, { token: bob.token })).status, 200)
    })

    it('removes a record for its creator; then it is gone (404)', async () => {
      const record = await create({ ...validRecords.attachment, facility })
      assert.equal((await api.delete(`/medical-records/${record.id}`)).status, 401)
      const removed = await api.delete(`/medical-records/${record.id}`, { token: alice.token })
      assert.equal(removed.status, 200)
      assert.equal(removed.body.id, record.id)
      assert.equal((await api.get(`/medical-records/${record.id}`, { token: alice.token })).status, 404)
      assert.equal((await api.delete(`/medical-records/${record.id}`, { token: alice.token })).status, 404)
      assert.equal(
        (await api.patch(`/medical-records/${record.id}`, { title: 'x' }, { token: alice.token })).status,
        404
      )
    })

    it('answers 401 to patch and remove without a token', async () => {
      const record = await create({ ...validRecords.attachment, facility })
      assert.equal((await api.patch(`/medical-records/${record.id}`, { title: 'x' })).status, 401)
      assert.equal((await api.delete(`/medical-records/${record.id}`)).status, 401)
    })

    it('refuses multi patch and remove and PUT', async () => {
      assert.equal((await api.patch('/medical-records', { title: 'x' }, { token: alice.token })).status, 405)
      assert.equal((await api.delete('/medical-records', { token: alice.token })).status, 405)
      const record = await create({ ...validRecords.attachment, facility })
      assert.equal(
        (await api.put(`/medical-records/${record.id}`, { type: 'attachment' }, { token: alice.token }))
          .status,
        405
      )
    })
  })
})
