// Signing out one session (Feathers' logout) ends that token on the server: REST and Socket.IO calls with it are
// refused from then on, other tokens of the account keep working, other connections signed in with that token are
// cut (told why first, so their client signs out and fails later calls at once), and the list of signed-out tokens
// never leaves the server.
import assert from 'node:assert/strict'
import {
  http,
  recordSessionEnd,
  refusal,
  signUp,
  sleep,
  socketClient,
  startServer,
  waitUntil,
  type TestServer
} from '../helpers/app'
import { auth } from '../helpers/auth'
import { MAX_REVOKED } from '../../src/auth/sessions'

describe('logout revokes its token', function () {
  this.timeout(60000)
  let server: TestServer
  const sockets: ReturnType<typeof socketClient>[] = []
  const connect = async (token: string) => {
    const socket = socketClient(server.url)
    sockets.push(socket)
    await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
    return socket
  }

  before(async () => {
    server = await startServer()
  })
  after(async () => {
    for (const socket of sockets) socket.close()
    await server?.close()
  })

  it('refuses a token signed out over REST (DELETE /authentication/<token>), on REST and Socket.IO; another token of the account still works', async () => {
    const user = await signUp(server.url)
    const other = (await auth(server.url, { email: user.email, password: user.password })).body.accessToken
    assert.equal(
      (await http(server.url, 'GET', `/accounts/${user.account.id}`, { token: user.token })).status,
      200
    )
    const out = await http(server.url, 'DELETE', `/authentication/${user.token}`, { token: user.token })
    assert.equal(out.status, 200, JSON.stringify(out.body))
    const again = await http(server.url, 'GET', `/accounts/${user.account.id}`, { token: user.token })
    assert.equal(again.status, 401)
    assert.match(again.body.message, /session has ended/)
    const socket = socketClient(server.url)
    sockets.push(socket)
    await assert.rejects(
      socket.client.authenticate({ strategy: 'jwt', accessToken: user.token }),
      (error: any) => error.code === 401
    )
    const fine = await http(server.url, 'GET', `/accounts/${user.account.id}`, { token: other })
    assert.equal(fine.status, 200)
    assert.equal(fine.body.revokedTokens, undefined, 'the signed-out tokens are not shown')
    assert.ok(!JSON.stringify(fine.body).includes('jti'))
  })

  it("refuses a token signed out over Socket.IO (the client's logout) and cuts another connection signed in with it", async () => {
    const user = await signUp(server.url)
    const first = await connect(user.token)
    const second = await connect(user.token)
    const other = (await auth(server.url, { email: user.email, password: user.password })).body.accessToken
    const third = await connect(other)
    await first.client.logout()
    assert.equal(
      (await http(server.url, 'GET', `/accounts/${user.account.id}`, { token: user.token })).status,
      401
    )
    await waitUntil(() => !second.socket.connected, 5000, 'the other connection with that token to be cut')
    // The connection of another token of the account stays signed in.
    assert.equal((await third.client.service('accounts').get(user.account.id)).id, user.account.id)
  })

  it('tells the other connection why before cutting it: its client signs out (logout, reason "signed-out"), and its later calls fail at once with that reason', async () => {
    const user = await signUp(server.url)
    const first = await connect(user.token)
    const second = await connect(user.token)
    const seen = recordSessionEnd(second)
    await first.client.logout()
    await waitUntil(() => !second.socket.connected, 5000, 'the other connection with that token to be cut')
    assert.deepEqual(seen, ['logout signed-out', 'disconnect'])
    assert.equal(
      await second.client.authentication.getAccessToken(),
      null,
      'the signed-out token is forgotten'
    )
    const refused = await refusal(second.client.service('accounts').get(user.account.id))
    assert.equal(refused.code, 401)
    assert.equal(refused.data?.reason, 'signed-out')
    assert.match(refused.message, /signed out from another window or device/)
    // Signing in again connects the socket again.
    await second.client.authenticate({ strategy: 'local', email: user.email, password: user.password })
    assert.equal((await second.client.service('accounts').get(user.account.id)).id, user.account.id)
  })

  it('fails a call at once (503) on a socket the app closed, instead of leaving it waiting', async () => {
    const user = await signUp(server.url)
    const socket = await connect(user.token)
    socket.close()
    const refused = await refusal(socket.client.service('accounts').get(user.account.id))
    assert.equal(refused.code, 503)
    assert.equal(refused.data?.reason, 'disconnected')
  })

  it('keeps every token of simultaneous sign-outs signed out', async () => {
    const user = await signUp(server.url)
    const tokens = await Promise.all(
      Array.from(
        { length: 8 },
        async () =>
          (await auth(server.url, { email: user.email, password: user.password })).body.accessToken as string
      )
    )
    const outs = await Promise.all(
      tokens.map((token) => http(server.url, 'DELETE', `/authentication/${token}`, { token }))
    )
    assert.ok(outs.every((out) => out.status === 200))
    await sleep(50)
    for (const token of tokens)
      assert.equal((await http(server.url, 'GET', `/accounts/${user.account.id}`, { token })).status, 401)
    assert.equal(
      (await http(server.url, 'GET', `/accounts/${user.account.id}`, { token: user.token })).status,
      200
    )
  })

  it('refuses a body that tries to set the signed-out tokens (400)', async () => {
    const user = await signUp(server.url)
    const res = await http(server.url, 'PATCH', `/accounts/${user.account.id}`, {
      token: user.token,
      body: { revokedTokens: [] }
    })
    assert.equal(res.status, 400)
  })
})

describe('logout revokes its token: many sign-outs', function () {
  this.timeout(60000)
  let server: TestServer
  before(async () => {
    server = await startServer()
  })
  after(() => server?.close())

  it(`signs the account out everywhere once more than ${MAX_REVOKED} live tokens are signed out, so none of them comes back`, async () => {
    const user = await signUp(server.url)
    // Tokens as a login issues them (session version 0), minted in-process: a login each would cost a password hash.
    const authentication = server.app.service('authentication')
    const tokens = await Promise.all(
      Array.from({ length: MAX_REVOKED + 1 }, () =>
        authentication.createAccessToken({ sv: 0 }, { subject: user.account.id })
      )
    )
    for (const token of tokens)
      assert.equal((await http(server.url, 'DELETE', `/authentication/${token}`, { token })).status, 200)
    for (const token of [...tokens, user.token])
      assert.equal((await http(server.url, 'GET', `/accounts/${user.account.id}`, { token })).status, 401)
    const fresh = (await auth(server.url, { email: user.email, password: user.password })).body.accessToken
    assert.equal(
      (await http(server.url, 'GET', `/accounts/${user.account.id}`, { token: fresh })).status,
      200
    )
  })
})
