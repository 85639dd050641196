// GET and DELETE /sessions: an account lists its own sign-in sessions (the asking one marked current, no hashes)
// and ends one (its access tokens refused at once, its refresh token dead, its sockets told and cut); nobody else
// sees or ends them — another account, even the superadmin of the account's organization, meets a 404 — except an
// application admin, who lists an account's sessions only when asking by `account`. Over REST and Socket.IO.
import assert from 'node:assert/strict'
import fc from 'fast-check'
import defaults from '../../../config/default.json'
import {
  http,
  recordSessionEnd,
  signUp,
  socketClient,
  startServer,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../../helpers/app'
import { auth } from '../../helpers/auth'
import { addMember } from '../../helpers/billing'
import { callMethod, rawEmit } from '../../helpers/tenants'

const ADMIN = { email: 'admin@sessions.test', password: 'admin password 1' }
const sidOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).sid

describe('sessions (GET and DELETE /sessions)', function () {
  this.timeout(60000)
  let server: TestServer
  let owner: SignedUp
  let superadmin: SignedUp
  let admin: string
  const sockets: ReturnType<typeof socketClient>[] = []
  const connect = async (token: string) => {
    const socket = socketClient(server.url)
    sockets.push(socket)
    await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
    return socket
  }
  /** A new session of `who`: its access and refresh tokens. */
  const newSession = async (who: SignedUp) => {
    const answer = await auth(server.url, { email: who.email, password: who.password })
    assert.equal(answer.status, 201, JSON.stringify(answer.body))
    return {
      id: sidOf(answer.body.accessToken) as string,
      token: answer.body.accessToken as string,
      refreshToken: answer.body.refreshToken as string
    }
  }

  before(async () => {
    server = await startServer({ admin: ADMIN })
    superadmin = await signUp(server.url, { organization: { name: 'Clinic', type: 'facility' } })
    owner = await signUp(server.url)
    await addMember(server.url, superadmin, superadmin.organization.id, owner)
    admin = (await auth(server.url, ADMIN)).body.accessToken
  })
  after(async () => {
    for (const socket of sockets) socket.close()
    await server?.close()
  })

  it('lists the caller’s own sessions, the asking one marked current, with when and from where, never a hash', async () => {
    const second = await newSession(owner)
    const list = await http(server.url, 'GET', '/sessions', { token: second.token })
    assert.equal(list.status, 200, JSON.stringify(list.body))
    assert.ok(list.body.data.length >= 2)
    assert.ok(list.body.data.every((session: any) => session.account === owner.account.id))
    const current = list.body.data.filter((session: any) => session.current)
    assert.deepEqual(
      current.map((session: any) => session.id),
      [second.id]
    )
    const [session] = current
    for (const field of ['createdAt', 'lastUsedAt', 'expiresAt'])
      assert.equal(typeof session[field], 'number')
    assert.equal(session.ip, '127.0.0.1')
    assert.equal(typeof session.userAgent, 'string')
    const text = JSON.stringify(list.body)
    for (const hidden of ['refreshHash', 'retiredHashes', 'graceBox', second.refreshToken.split('.')[1]])
      assert.ok(!text.includes(hidden), hidden)
    const one = await http(server.url, 'GET', `/sessions/${second.id}`, { token: owner.token })
    assert.equal(one.status, 200)
    assert.equal(one.body.current, false, 'asked with another session’s token')
  })

  it('ends a session with DELETE: its access token is refused at once, its refresh token is dead, its socket is told and cut; the others live on', async () => {
    const ending = await newSession(owner)
    const other = await newSession(owner)
    const socket = await connect(ending.token)
    const seen = recordSessionEnd(socket)
    const otherSocket = await connect(other.token)
    const removed = await http(server.url, 'DELETE', `/sessions/${ending.id}`, { token: other.token })
    assert.equal(removed.status, 200, JSON.stringify(removed.body))
    assert.equal(removed.body.refreshHash, undefined)
    assert.equal((await http(server.url, 'GET', '/sessions', { token: ending.token })).status, 401)
    const refresh = await auth(server.url, {
      action: 'refreshAccessToken',
      refreshToken: ending.refreshToken
    })
    assert.equal(refresh.status, 401)
    await waitUntil(() => seen.includes('disconnect'), 5000, 'the socket cut')
    assert.deepEqual(seen, ['logout session-revoked', 'disconnect'])
    assert.ok(otherSocket.socket.connected)
    assert.equal((await otherSocket.client.service('sessions').find()).data.length >= 1, true)
    assert.equal((await http(server.url, 'GET', '/sessions', { token: other.token })).status, 200)
  })

  it('needs a token (401) and takes no unknown query field (400)', async () => {
    assert.equal((await http(server.url, 'GET', '/sessions')).status, 401)
    const bad = await http(server.url, 'GET', '/sessions?refreshHash=x', { token: owner.token })
    assert.equal(bad.status, 400)
  })

  describe('tenant isolation: owner, another account (the organization’s superadmin) and an application admin × every method × REST and Socket.IO', () => {
    type Caller = 'owner' | 'other' | 'admin'
    const tokenOf = (caller: Caller) =>
      caller === 'owner' ? owner.token : caller === 'other' ? superadmin.token : admin
    // What each caller gets for a session of the owner: find answers 200 with or without it.
    const expected: Record<Caller, Record<string, number | 'listed' | 'unlisted'>> = {
      owner: { find: 'listed', get: 200, remove: 200, create: 405, patch: 405, update: 405 },
      other: { find: 'unlisted', get: 404, remove: 404, create: 405, patch: 405, update: 405 },
      admin: { find: 'unlisted', get: 200, remove: 200, create: 405, patch: 405, update: 405 }
    }
    const methods = ['find', 'get', 'remove', 'create', 'patch', 'update']

    for (const transport of ['rest', 'socketio'] as const)
      for (const caller of ['owner', 'other', 'admin'] as const)
        for (const method of methods)
          it(`${transport}: ${caller} ${method} → ${expected[caller][method]}`, async () => {
            const target = await newSession(owner)
            const want = expected[caller][method]
            let status: number
            let listed: string[] = []
            if (transport === 'rest') {
              const verb = {
                find: 'GET',
                get: 'GET',
                remove: 'DELETE',
                create: 'POST',
                patch: 'PATCH',
                update: 'PUT'
              }[method] as string
              const path = method === 'find' || method === 'create' ? '/sessions' : `/sessions/${target.id}`
              const body = ['create', 'patch', 'update'].includes(method) ? { expiresAt: 1 } : undefined
              const answer = await http(server.url, verb, path, { token: tokenOf(caller), body })
              status = answer.status
              if (method === 'find') listed = answer.body.data.map((session: any) => session.id)
            } else {
              const socket = await connect(tokenOf(caller))
              if (['create', 'patch', 'update'].includes(method)) {
                const args = method === 'create' ? [{ expiresAt: 1 }, {}] : [target.id, { expiresAt: 1 }, {}]
                const answer = await rawEmit(socket.socket, method, 'sessions', args)
                status = answer.error?.code ?? 200
              } else {
                try {
                  const result = await callMethod(socket.client, 'sessions', method, target.id, undefined)
                  status = 200
                  if (method === 'find') listed = result.data.map((session: any) => session.id)
                } catch (error: any) {
                  status = error.code
                }
              }
            }
            if (want === 'listed' || want === 'unlisted') {
              assert.equal(status, 200)
              assert.equal(listed.includes(target.id), want === 'listed')
            } else assert.equal(status, want)
            // Whatever the answer, a session nobody ended still works, and one that was ended is gone.
            const still = await http(server.url, 'GET', `/accounts/${owner.account.id}`, {
              token: target.token
            })
            assert.equal(still.status, method === 'remove' && want === 200 ? 401 : 200)
          })

    it('an application admin lists an account’s sessions when asking by account, and only its own without', async () => {
      const target = await newSession(owner)
      const asked = await http(server.url, 'GET', `/sessions?account=${owner.account.id}&id=${target.id}`, {
        token: admin
      })
      assert.equal(asked.status, 200)
      assert.deepEqual(
        asked.body.data.map((session: any) => session.id),
        [target.id]
      )
      assert.ok(asked.body.data.every((session: any) => session.account === owner.account.id))
      const own = await http(server.url, 'GET', '/sessions', { token: admin })
      assert.ok(own.body.data.every((session: any) => session.account !== owner.account.id))
      const other = await http(server.url, 'GET', `/sessions?account=${owner.account.id}`, {
        token: superadmin.token
      })
      assert.equal(other.status, 200)
      assert.deepEqual(other.body.data, [], 'a superadmin of the account’s organization sees none of them')
    })
  })
})

describe('sessions and refreshes under arbitrary input', function () {
  this.timeout(120000)
  let server: TestServer
  let user: SignedUp
  before(async () => {
    server = await startServer({
      rateLimits: { ...defaults.rateLimits, loginsPerIp: { points: 100000, durationMs: 60000 } }
    })
    user = await signUp(server.url)
  })
  after(async () => server?.close())

  it('never answers arbitrary ids, queries and refresh bodies with a 5xx', async () => {
    const anything = fc.jsonValue({ maxDepth: 3 })
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'DELETE'),
        fc.string({ maxLength: 40 }),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), { maxKeys: 3 }),
        async (verb, id, query) => {
          const qs = new URLSearchParams(query).toString()
          const path = `/sessions${id ? `/${encodeURIComponent(id)}` : ''}${qs ? `?${qs}` : ''}`
          const answer = await http(server.url, verb, path, { token: user.token })
          assert.ok(answer.status < 500, `${verb} ${path} → ${answer.status} ${JSON.stringify(answer.body)}`)
        }
      ),
      { seed: 29, numRuns: 150 }
    )
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 80 }), anything), async (refreshToken) => {
        const answer = await auth(server.url, { action: 'refreshAccessToken', refreshToken })
        assert.ok(
          answer.status === 400 || answer.status === 401,
          `${JSON.stringify(refreshToken)} → ${answer.status} ${JSON.stringify(answer.body)}`
        )
      }),
      { seed: 30, numRuns: 150 }
    )
  })
})
