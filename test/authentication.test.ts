import assert from 'node:assert/strict'
import { startServer, restClient, signUp, type TestServer } from './helpers/app'

describe('password login (POST /authentication)', () => {
  let server: TestServer
  let api: ReturnType<typeof restClient>
  before(async () => {
    server = await startServer()
    api = restClient(server.url)
  })
  after(() => server.close())

  it('logs in with { email, password } and no strategy, returning accessToken, authentication and the account', async () => {
    const user = await signUp(server.url)
    const res = await api.post('/authentication', { email: user.email, password: user.password })
    assert.equal(res.status, 201)
    assert.equal(typeof res.body.accessToken, 'string')
    assert.equal(res.body.authentication.strategy, 'local')
    assert.equal(res.body.account.id, user.account.id)
    assert.equal(res.body.account.password, undefined)
  })

  it('accepts strategy "local" too, and an email in another case', async () => {
    const user = await signUp(server.url)
    const res = await api.post('/authentication', {
      strategy: 'local',
      email: ` ${user.email.toUpperCase()} `,
      password: user.password
    })
    assert.equal(res.status, 201)
    assert.equal(res.body.account.id, user.account.id)
  })

  it('gives the same 401 for a wrong email and a wrong password', async () => {
    const user = await signUp(server.url)
    const wrongPassword = await api.post('/authentication', {
      email: user.email,
      password: 'not the password'
    })
    const wrongEmail = await api.post('/authentication', {
      email: `nobody-${user.email}`,
      password: user.password
    })
    assert.equal(wrongPassword.status, 401)
    assert.equal(wrongEmail.status, 401)
    assert.deepEqual(wrongPassword.body, wrongEmail.body)
  })

  it('authenticates later calls with the Bearer token', async () => {
    const user = await signUp(server.url)
    const res = await api.get(`/accounts/${user.account.id}`, { token: user.token })
    assert.equal(res.status, 200)
  })

  it('refuses a login whose fields are not strings with 400 naming them', async () => {
    const res = await api.post('/authentication', { email: 'a@b.test', password: 42 })
    assert.equal(res.status, 400)
    assert.deepEqual(
      res.body.errors.map((e: any) => e.field),
      ['password']
    )
  })

  it('refuses an unknown strategy with 401', async () => {
    const res = await api.post('/authentication', { strategy: 'magic', email: 'a@b.test' })
    assert.equal(res.status, 401)
  })
})
