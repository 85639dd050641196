import assert from 'node:assert/strict'
import { http, restClient, socketClient, type TestServer } from '../helpers/app'
import { startFacilityServer, type FacilityFixture } from '../helpers/billing'
import { validRecords } from '../fixtures/medical-records'

// Client input the stores cannot hold faithfully is a 400 naming the field, on both engines and both transports.
describe('malformed input', () => {
  let server: TestServer
  let facility: FacilityFixture
  let api: ReturnType<typeof restClient>

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    api = restClient(server.url, facility.owner.token)
  })
  after(() => server.close())

  const countRecords = async () =>
    ((await (server.app.service('medical-records' as any) as any)._find({ paginate: false })) as any[]).length
  const postRaw = (path: string, raw: string) =>
    http(server.url, 'POST', path, {
      raw,
      token: facility.owner.token,
      headers: { 'content-type': 'application/json' }
    })

  describe('dotted keys in bodies', () => {
    it('refuses a dotted key inside a free-form object (dental-note status) with 400 naming the field, storing nothing', async () => {
      const before = await countRecords()
      const res = await api.post('/medical-records', {
        ...validRecords['dental-note'],
        facility: facility.id,
        status: { 'tooth.11': 'caries' }
      })
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.equal(res.body.name, 'BadRequest')
      assert.deepEqual(res.body.errors, [{ field: 'status.tooth.11', message: 'must not contain a "."' }])
      assert.equal(await countRecords(), before)
    })

    it('refuses a dotted key deep in an ape-report answer with 400', async () => {
      const body = {
        ...validRecords['ape-report'],
        facility: facility.id,
        data: { values: [{ id: 'input-notes', answer: { 'a.b': 1 } }] }
      }
      const res = await api.post('/medical-records', body)
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.equal(res.body.errors[0].field, 'data.values.0.answer.a.b')
    })

    it('still accepts free-form objects without dotted keys', async () => {
      const res = await api.post('/medical-records', {
        ...validRecords['dental-note'],
        facility: facility.id,
        status: { 'tooth-11': 'caries' }
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
    })

    it('refuses dotted keys in patches (which MongoDB would read as paths) and keeps $ keys a 400', async () => {
      const created = await api.post('/medical-records', {
        ...validRecords['dental-note'],
        facility: facility.id
      })
      assert.equal(created.status, 200, JSON.stringify(created.body))
      const dotted = await api.patch(`/medical-records/${created.body.id}`, { 'status.16': 'filled' })
      assert.equal(dotted.status, 400)
      assert.deepEqual(dotted.body.errors, [{ field: 'status.16', message: 'must not contain a "."' }])
      const operator = await api.patch(`/medical-records/${created.body.id}`, { status: { $set: 1 } })
      assert.equal(operator.status, 400)
      assert.deepEqual(operator.body.errors, [{ field: 'status.$set', message: 'is not allowed' }])
      const read = await api.get(`/medical-records/${created.body.id}`)
      assert.deepEqual(read.body.status, validRecords['dental-note'].status)
    })

    it('answers the same over Socket.IO with the Feathers client', async () => {
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({
          strategy: 'local',
          email: facility.owner.email,
          password: facility.owner.password
        })
        await assert.rejects(
          socket.client.service('medical-records').create({
            ...validRecords['dental-note'],
            facility: facility.id,
            status: { 'tooth.11': 'caries' }
          } as any),
          (error: any) => {
            assert.equal(error.code, 400)
            assert.deepEqual(error.errors, [{ field: 'status.tooth.11', message: 'must not contain a "."' }])
            return true
          }
        )
      } finally {
        socket.close()
      }
    })
  })

  describe('non-finite numbers', () => {
    it('refuses 1e309 (Infinity) in a medical record body with 400 naming the field, storing nothing', async () => {
      const before = await countRecords()
      const allergy = JSON.stringify({ ...validRecords.allergy, facility: facility.id }).replace(
        '"startedAt":1600000000000',
        '"startedAt":1e309'
      )
      const res = await postRaw('/medical-records', allergy)
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.deepEqual(res.body.errors, [{ field: 'startedAt', message: 'must be a finite number' }])
      const ent = JSON.stringify({ ...validRecords['ent-note'], facility: facility.id }).replace(
        '"ahi":22.5',
        '"ahi":-1e309'
      )
      const negative = await postRaw('/medical-records', ent)
      assert.equal(negative.status, 400)
      assert.equal(negative.body.errors[0].field, 'ahi')
      const nested = JSON.stringify({
        ...validRecords['dental-note'],
        facility: facility.id,
        status: { x: [1, 'HUGE'] }
      }).replace('"HUGE"', '2e400')
      const nestedRes = await postRaw('/medical-records', nested)
      assert.equal(nestedRes.status, 400)
      assert.equal(nestedRes.body.errors[0].field, 'status.x.1')
      assert.equal(await countRecords(), before)
    })

    it('refuses 1e309 in an encounter body', async () => {
      const res = await postRaw(
        '/medical-encounters',
        `{"facility":"${facility.id}","patient":"${facility.member.account.id}","startedAt":1e309}`
      )
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.deepEqual(res.body.errors, [{ field: 'startedAt', message: 'must be a finite number' }])
    })

    it('refuses a query value that coerces to Infinity with 400', async () => {
      const res = await api.get('/medical-records?createdAt[$gt]=1e309')
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.equal(res.body.errors[0].field, 'createdAt.$gt')
      const limit = await api.get('/organizations?$limit=Infinity')
      assert.equal(limit.status, 400)
    })
  })

  describe('ids', () => {
    it('refuses an id that is not a string over Socket.IO (an operator object would match any record)', async () => {
      const record = await api.post('/medical-records', { ...validRecords.allergy, facility: facility.id })
      assert.equal(record.status, 200, JSON.stringify(record.body))
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({
          strategy: 'local',
          email: facility.owner.email,
          password: facility.owner.password
        })
        const badId = (call: Promise<unknown>) =>
          assert.rejects(call, (error: any) => {
            assert.equal(error.code, 400)
            assert.deepEqual(error.errors, [{ field: 'id', message: 'must be a string' }])
            return true
          })
        const operator = { $ne: '' } as any // an object where the client API expects an id: exactly what is tested
        await badId(socket.client.service('medical-records').get(operator))
        await badId(socket.client.service('accounts').patch(operator, { firstName: 'Injected' }))
        await badId(socket.client.service('organizations').remove(operator))
        await badId(socket.client.service('organizations').get(null as any)) // null is only multi patch/remove
        await badId(socket.client.service('organizations').get(['x'] as any))
        const me = await api.get(`/accounts/${facility.owner.account.id}`)
        assert.notEqual(me.body.firstName, 'Injected')
        assert.equal((await api.get(`/organizations/${facility.id}`)).status, 200)
        assert.equal((await socket.client.service('medical-records').get(record.body.id)).id, record.body.id)
      } finally {
        socket.close()
      }
    })
  })
})
