import assert from 'node:assert/strict'
import { startServer, restClient, signUp, http, type TestServer } from '../helpers/app'

describe('NoSQL injection and unsafe keys', () => {
  let server: TestServer
  let api: ReturnType<typeof restClient>
  let user: Awaited<ReturnType<typeof signUp>>
  before(async () => {
    server = await startServer()
    api = restClient(server.url)
    user = await signUp(server.url)
  })
  after(() => server.close())

  it('refuses $where inside a query field with 400', async () => {
    const res = await api.get('/accounts?email[$where]=this.password', { token: user.token })
    assert.equal(res.status, 400)
    assert.equal(res.body.name, 'BadRequest')
  })

  it('refuses an unknown top-level $ operator and unknown $ operators inside $or', async () => {
    assert.equal((await api.get('/accounts?$where=1', { token: user.token })).status, 400)
    assert.equal((await api.get('/accounts?$or[0][email][$regex]=.*', { token: user.token })).status, 400)
    assert.equal((await api.get('/accounts?email[$exists]=true', { token: user.token })).status, 400)
  })

  it('does not log in with {"$gt": ""} as the password', async () => {
    const res = await api.post('/authentication', { email: user.email, password: { $gt: '' } })
    assert.equal(res.status, 400)
    assert.equal(res.body.accessToken, undefined)
  })

  it('does not log in with {"$gt": ""} as the email', async () => {
    const res = await api.post('/authentication', { email: { $gt: '' }, password: user.password })
    assert.equal(res.status, 400)
    assert.equal(res.body.accessToken, undefined)
  })

  it('refuses __proto__ keys in a body with 400, and pollutes nothing', async () => {
    const raw = `{"email":"proto@example.test","password":"long enough pw","__proto__":{"admin":true}}`
    const res = await http(server.url, 'POST', '/accounts', {
      raw,
      headers: { 'content-type': 'application/json' }
    })
    assert.equal(res.status, 400)
    assert.match(res.body.message, /__proto__/)
    assert.equal(({} as any).admin, undefined)
    const nested = `{"firstName":"x","constructor":{"prototype":{"admin":true}}}`
    const patched = await http(server.url, 'PATCH', `/accounts/${user.account.id}`, {
      raw: nested,
      token: user.token,
      headers: { 'content-type': 'application/json' }
    })
    assert.equal(patched.status, 400)
  })

  it('refuses $ operators in a body ($set, nested $inc) with 400', async () => {
    const set = await api.patch(
      `/accounts/${user.account.id}`,
      { $set: { admin: true } },
      { token: user.token }
    )
    assert.equal(set.status, 400)
    assert.match(set.body.message, /\$set/)
    const nested = await api.post(
      '/organizations',
      { name: 'X', type: 'facility', types: [{ $inc: 1 }] },
      { token: user.token }
    )
    assert.equal(nested.status, 400)
    const me = await api.get(`/accounts/${user.account.id}`, { token: user.token })
    assert.equal(me.body.admin, undefined)
  })

  it('drops a __proto__ key in the query string without effect', async () => {
    const res = await api.get('/accounts?__proto__[admin]=true', { token: user.token })
    assert.equal(res.status, 200)
    assert.deepEqual(
      res.body.data.map((a: any) => a.id),
      [user.account.id]
    )
    assert.equal(({} as any).admin, undefined)
  })

  it('refuses a __proto__ key in a query object sent over Socket.IO-like internal params with 400', async () => {
    const query = JSON.parse('{"__proto__":{"admin":true}}')
    await assert.rejects(
      server.app
        .service('accounts' as any)
        .find({ provider: 'rest', account: user.account, authenticated: true, query } as any),
      { name: 'BadRequest' }
    )
  })
})
