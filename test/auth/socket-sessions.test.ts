// Sockets through a shift of short access tokens (2 s here): a Socket.IO connection re-authenticates with a new
// access token (Feathers' `create authentication { strategy: "jwt", accessToken }`) without dropping and keeps
// receiving its events; a connection whose token expires is told so (`session-ended`, reason `expired`) instead of
// seeing its calls fail silently; and the typed client with `keepSessionAlive` stays signed in across three token
// lifetimes, on the same connection.
import assert from 'node:assert/strict'
import {
  http,
  recordEvents,
  recordSessionEnd,
  signUp,
  sleep,
  socketClient,
  startServer,
  waitUntil,
  type TestServer
} from '../helpers/app'
import { auth } from '../helpers/auth'
import { keepSessionAlive } from '../../src/client'

const TTL = 2000
const expiryOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).exp * 1000

describe('sockets and short access tokens', function () {
  this.timeout(60000)
  let server: TestServer
  const sockets: ReturnType<typeof socketClient>[] = []
  const open = () => {
    const socket = socketClient(server.url)
    sockets.push(socket)
    return socket
  }
  // A change the account's connection is sent: its own account patched.
  const touch = (user: { token: string; account: { id: string } }, token: string, firstName: string) =>
    http(server.url, 'PATCH', `/accounts/${user.account.id}`, { token, body: { firstName } })

  before(async () => {
    server = await startServer({
      sessions: { accessTokenTtlMs: TTL, idleMs: 60_000, maxMs: 600_000, refreshGraceMs: 1000 }
    })
  })
  after(async () => {
    for (const socket of sockets) socket.close()
    await server?.close()
  })

  it('re-authenticates an open connection with a new access token: same socket, still receiving events after the first token expired', async () => {
    const user = await signUp(server.url)
    const first = (await auth(server.url, { email: user.email, password: user.password })).body
    const socket = open()
    const seen = recordSessionEnd(socket)
    const events = recordEvents(socket.client, 'accounts', ['patched'])
    await socket.client.authenticate({ strategy: 'jwt', accessToken: first.accessToken })
    const id = socket.socket.id
    // Refreshed in the second after the first token's issue (token times are whole seconds): the new token
    // expires a second later than the first, which still has most of a second to live.
    await sleep(expiryOf(first.accessToken) - TTL + 1000 + 50 - Date.now())
    const renewed = (
      await auth(server.url, { action: 'refreshAccessToken', refreshToken: first.refreshToken })
    ).body
    await socket.client.authenticate({ strategy: 'jwt', accessToken: renewed.accessToken })
    // Past the first token's expiry, within the new one's.
    const firstExpiry = expiryOf(first.accessToken)
    assert.ok(expiryOf(renewed.accessToken) > firstExpiry + 500)
    await sleep(firstExpiry + 300 - Date.now())
    const patched = await touch(user, renewed.accessToken, 'Still here')
    assert.equal(patched.status, 200, JSON.stringify(patched.body) + JSON.stringify(seen))
    await waitUntil(() => events.length === 1, 5000, 'the patched event')
    assert.equal(events[0].data.firstName, 'Still here')
    assert.equal(socket.socket.id, id, 'the same connection')
    assert.ok(socket.socket.connected)
    assert.deepEqual(seen, [], 'no session end')
  })

  it('tells a connection whose access token expired (session-ended, reason expired) before cutting it; its client then fails calls with 401 at once', async () => {
    const user = await signUp(server.url)
    const socket = open()
    const ended: any[] = []
    socket.socket.on('authentication session-ended', (event: any) => ended.push(event))
    const seen = recordSessionEnd(socket)
    await socket.client.authenticate({ strategy: 'local', email: user.email, password: user.password })
    await waitUntil(() => seen.includes('disconnect'), TTL + 3000, 'the cut')
    assert.deepEqual(seen, ['logout expired', 'disconnect'])
    assert.match(ended[0].message, /expired/)
    await assert.rejects(socket.client.service('accounts').get(user.account.id), (error: any) => {
      assert.equal(error.code, 401)
      assert.equal(error.data.reason, 'expired')
      return true
    })
  })

  it('never sends a refresh token in a realtime event: logins, refreshes and ended sessions seen by the account’s socket', async () => {
    const user = await signUp(server.url)
    const socket = open()
    const payloads: string[] = []
    socket.socket.onAny((event: string, ...args: unknown[]) => payloads.push(JSON.stringify([event, args])))
    const login: any = await socket.client.authenticate({
      strategy: 'local',
      email: user.email,
      password: user.password
    })
    const other = (await auth(server.url, { email: user.email, password: user.password })).body
    const renewed = (
      await auth(server.url, { action: 'refreshAccessToken', refreshToken: other.refreshToken })
    ).body
    const sid = JSON.parse(Buffer.from(other.accessToken.split('.')[1], 'base64url').toString('utf8')).sid
    const removed = await http(server.url, 'DELETE', `/sessions/${sid}`, { token: login.accessToken })
    assert.equal(removed.status, 200)
    await touch(user, login.accessToken, 'Seen')
    await waitUntil(() => payloads.some((payload) => payload.includes('Seen')), 5000, 'the patched event')
    assert.ok(
      payloads.some((payload) => payload.includes('sessions removed')),
      'the removal was an event'
    )
    for (const token of [login.refreshToken, other.refreshToken, renewed.refreshToken])
      assert.ok(!payloads.some((payload) => payload.includes(token.split('.')[1])))
    assert.ok(!payloads.some((payload) => /refreshHash|retiredHashes|graceBox/.test(payload)))
  })

  it('cuts the sockets of a session ended for refresh-token reuse, telling them why first', async () => {
    const user = await signUp(server.url)
    await sleep(1020 - (Date.now() % 1000)) // just past a whole second: the tokens live almost the full 2 s
    const login = (await auth(server.url, { email: user.email, password: user.password })).body
    const renewed = (
      await auth(server.url, { action: 'refreshAccessToken', refreshToken: login.refreshToken })
    ).body
    const socket = open()
    const seen = recordSessionEnd(socket)
    await socket.client.authenticate({ strategy: 'jwt', accessToken: renewed.accessToken })
    await sleep(1100) // past the grace window (1 s here)
    const reuse = await auth(server.url, { action: 'refreshAccessToken', refreshToken: login.refreshToken })
    assert.equal(reuse.status, 401)
    await waitUntil(() => seen.includes('disconnect'), 5000, 'the cut')
    assert.deepEqual(seen, ['logout refresh-reuse', 'disconnect'])
  })

  it('keeps a client signed in with keepSessionAlive across three token lifetimes, on the same connection, receiving events', async () => {
    const user = await signUp(server.url)
    const socket = open()
    const seen = recordSessionEnd(socket)
    const keeper = keepSessionAlive(socket.client)
    const events = recordEvents(socket.client, 'accounts', ['patched'])
    const login: any = await socket.client.authenticate({
      strategy: 'local',
      email: user.email,
      password: user.password
    })
    assert.equal(typeof login.refreshToken, 'string')
    const id = socket.socket.id
    for (let lifetime = 1; lifetime <= 3; lifetime++) {
      await sleep(TTL)
      const me = await socket.client.service('accounts').get(user.account.id)
      assert.equal(me.id, user.account.id, `a call in lifetime ${lifetime}`)
    }
    await sleep(500)
    const accessToken = (await socket.client.authentication.getAccessToken()) as string
    await touch(user, accessToken, 'Shift')
    await waitUntil(() => events.length === 1, 5000, 'the patched event')
    assert.equal(socket.socket.id, id)
    assert.deepEqual(seen, [])
    keeper.stop()
  })
})
