import assert from 'node:assert/strict'
import { startServer, restClient, type TestServer } from '../helpers/app'

// The shared body-operator mechanism, seen through a small service that declares one operator.
describe('body operators', () => {
  let server: TestServer
  before(async () => {
    server = await startServer()
    const echo = {
      bodyOperators: ['$setDefaultThing'],
      async create(data: any, params: any) {
        return { data, operators: params.operators }
      },
      async patch(id: string, data: any, params: any) {
        return { id, data, operators: params.operators }
      }
    }
    server.app.use('echo-operators' as any, echo as any, { methods: ['create', 'patch'] })
  })
  after(() => server.close())

  it('hands a declared operator to the service apart from the data', async () => {
    const res = await restClient(server.url).patch('/echo-operators/1', {
      $setDefaultThing: 'card_2',
      note: 'x'
    })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { id: '1', data: { note: 'x' }, operators: { $setDefaultThing: 'card_2' } })
  })

  it('refuses an operator the service did not declare with 400 naming it', async () => {
    const res = await restClient(server.url).patch('/echo-operators/1', { $deleteEverything: true })
    assert.equal(res.status, 400)
    assert.deepEqual(res.body.errors, [{ field: '$deleteEverything', message: 'is not allowed' }])
  })

  it('refuses a declared operator nested inside data', async () => {
    const res = await restClient(server.url).post('/echo-operators', { nested: { $setDefaultThing: 'x' } })
    assert.equal(res.status, 400)
    assert.equal(res.body.errors[0].field, 'nested.$setDefaultThing')
  })
})
