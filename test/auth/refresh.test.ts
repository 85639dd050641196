// Sessions that last a clinic shift: every login answers a short access token and a refresh token bound to a
// session; refreshing rotates both; a rotated refresh token presented again (after the grace window in which two
// tabs may refresh at once) ends the whole session and is an audit event; sessions end when idle and at their
// absolute limit (the app's clock is moved, nothing waits).
import assert from 'node:assert/strict'
import defaults from '../../config/default.json'
import { http, signUp, startServer, type TestServer } from '../helpers/app'
import { auth } from '../helpers/auth'
import { testClock, type TestClock } from '../helpers/subscriptions'

const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'))
const HOUR = 60 * 60 * 1000

describe('refresh tokens (POST /authentication { action: "refreshAccessToken" })', function () {
  this.timeout(60000)
  let server: TestServer
  let clock: TestClock
  const refresh = (refreshToken: unknown) => auth(server.url, { action: 'refreshAccessToken', refreshToken })
  const me = (token: string, id: string) => http(server.url, 'GET', `/accounts/${id}`, { token })
  const login = async () => {
    const user = await signUp(server.url)
    const answer = await auth(server.url, { email: user.email, password: user.password })
    assert.equal(answer.status, 201, JSON.stringify(answer.body))
    return {
      ...user,
      token: answer.body.accessToken as string,
      refreshToken: answer.body.refreshToken as string
    }
  }

  before(async () => {
    clock = testClock()
    server = await startServer({ clock })
  })
  after(async () => {
    await server?.close()
  })

  it('answers a password login with an access token of the configured lifetime and a refresh token of its session', async () => {
    const user = await login()
    assert.match(user.refreshToken, /^[^.]+\.[A-Za-z0-9_-]{43}$/)
    const payload = claims(user.token)
    assert.equal(payload.exp - payload.iat, defaults.sessions.accessTokenTtlMs / 1000)
    assert.equal(payload.sid, user.refreshToken.split('.')[0], 'the access token names its session')
    assert.equal((await me(user.token, user.account.id)).status, 200)
  })

  it('rotates: a refresh answers a new access token and a new refresh token, both working, for the same session', async () => {
    const user = await login()
    const answer = await refresh(user.refreshToken)
    assert.equal(answer.status, 201, JSON.stringify(answer.body))
    const { accessToken, refreshToken } = answer.body
    assert.notEqual(refreshToken, user.refreshToken)
    assert.notEqual(accessToken, user.token)
    assert.equal(claims(accessToken).sid, claims(user.token).sid)
    assert.equal(claims(accessToken).sub, user.account.id)
    assert.equal((await me(accessToken, user.account.id)).status, 200)
    assert.equal(answer.body.account.id, user.account.id)
    assert.equal(answer.body.account.password, undefined)
    const next = await refresh(refreshToken)
    assert.equal(next.status, 201, JSON.stringify(next.body))
  })

  it('ends the whole session when a rotated refresh token is used again after the grace window, and records refresh-reuse for the account', async () => {
    const user = await login()
    const rotated = (await refresh(user.refreshToken)).body
    clock.advance(defaults.sessions.refreshGraceMs + 1)
    const reuse = await refresh(user.refreshToken)
    assert.equal(reuse.status, 401, JSON.stringify(reuse.body))
    assert.equal(reuse.body.data.reason, 'refresh-reuse')
    assert.equal((await refresh(rotated.refreshToken)).status, 401, 'the new refresh token is dead too')
    const refused = await me(rotated.accessToken, user.account.id)
    assert.equal(refused.status, 401, 'and so is its access token')
    assert.equal((await me(user.token, user.account.id)).status, 401, 'and the first one')
    const other = await auth(server.url, { email: user.email, password: user.password })
    const events = await http(server.url, 'GET', '/audit-events?action=refresh-reuse', {
      token: other.body.accessToken
    })
    assert.equal(events.status, 200, JSON.stringify(events.body))
    assert.equal(events.body.data.length, 1)
    assert.equal(events.body.data[0].account, user.account.id)
    const text = JSON.stringify(events.body)
    assert.ok(!text.includes(user.refreshToken.split('.')[1]), 'no refresh token in the audit trail')
    assert.ok(!text.includes(rotated.refreshToken.split('.')[1]))
  })

  it('answers two concurrent refreshes with one token, and the same token again within the grace window, with the same new pair', async () => {
    const user = await login()
    const answers = await Promise.all(Array.from({ length: 8 }, () => refresh(user.refreshToken)))
    const [a] = answers
    for (const answer of answers) {
      assert.equal(answer.status, 201, JSON.stringify(answer.body))
      assert.equal(answer.body.refreshToken, a.body.refreshToken)
      assert.equal(answer.body.accessToken, a.body.accessToken)
    }
    clock.advance(defaults.sessions.refreshGraceMs - 1000)
    const late = await refresh(user.refreshToken)
    assert.equal(late.status, 201)
    assert.equal(late.body.refreshToken, a.body.refreshToken)
    assert.equal((await me(a.body.accessToken, user.account.id)).status, 200, 'the session lives on')
    assert.equal((await refresh(a.body.refreshToken)).status, 201)
  })

  it('ends a session unused for the idle timeout: its refresh token and its access tokens are refused', async () => {
    const user = await login()
    clock.advance(defaults.sessions.idleMs - HOUR)
    const fresh = await refresh(user.refreshToken)
    assert.equal(fresh.status, 201, 'used within the idle timeout: kept')
    clock.advance(defaults.sessions.idleMs + 1)
    const idle = await refresh(fresh.body.refreshToken)
    assert.equal(idle.status, 401)
    assert.equal(idle.body.data.reason, 'session-expired')
    assert.equal((await me(fresh.body.accessToken, user.account.id)).status, 401)
  })

  it('ends a session at its absolute limit however often it is refreshed', async () => {
    const user = await login()
    let token = user.refreshToken
    const steps = Math.ceil(defaults.sessions.maxMs / (defaults.sessions.idleMs - HOUR))
    for (let step = 0; step < steps; step++) {
      clock.advance(defaults.sessions.idleMs - HOUR)
      const answer = await refresh(token)
      if (answer.status !== 201) {
        assert.equal(answer.status, 401)
        assert.equal(answer.body.data.reason, 'session-expired')
        assert.ok(step >= Math.floor(defaults.sessions.maxMs / (defaults.sessions.idleMs - HOUR)) - 1)
        return
      }
      token = answer.body.refreshToken
    }
    assert.fail('the session outlived its absolute limit')
  })

  it('refuses an unknown or forged refresh token with 401 without ending its session, and a bad body with 400 naming the field', async () => {
    const user = await login()
    const [sid] = user.refreshToken.split('.')
    for (const token of [
      'nope',
      `${sid}.${'A'.repeat(43)}`,
      'x.y',
      '$where.y',
      `${'f'.repeat(24)}.z`,
      '..'
    ]) {
      const answer = await refresh(token)
      assert.equal(answer.status, 401, token)
      assert.equal(answer.body.data.reason, 'refresh-token-invalid')
    }
    assert.equal((await me(user.token, user.account.id)).status, 200, 'a forged token ends nothing')
    for (const body of [
      { action: 'refreshAccessToken' },
      { action: 'refreshAccessToken', refreshToken: 5 }
    ]) {
      const answer = await auth(server.url, body)
      assert.equal(answer.status, 400, JSON.stringify(answer.body))
      assert.match(answer.body.message, /refreshToken/)
    }
    const extra = await auth(server.url, {
      action: 'refreshAccessToken',
      refreshToken: user.refreshToken,
      x: 1
    })
    assert.equal(extra.status, 400)
    const inQuery = await http(
      server.url,
      'POST',
      `/authentication?refreshToken=${encodeURIComponent(user.refreshToken)}`,
      { body: { action: 'refreshAccessToken' } }
    )
    assert.equal(inQuery.status, 400, 'accepted only in the body')
  })

  it('ends the session at logout: its refresh token is refused', async () => {
    const user = await login()
    const out = await http(server.url, 'DELETE', `/authentication/${user.token}`, { token: user.token })
    assert.equal(out.status, 200)
    assert.equal((await refresh(user.refreshToken)).status, 401)
  })

  it('ends every session of the account at logout-everywhere', async () => {
    const user = await login()
    const second = (await auth(server.url, { email: user.email, password: user.password })).body
    const out = await auth(server.url, { action: 'logout-everywhere' }, user.token)
    assert.equal(out.status, 201)
    assert.equal((await refresh(user.refreshToken)).status, 401)
    assert.equal((await refresh(second.refreshToken)).status, 401)
  })
})

describe('refresh tokens are rate-limited like logins', function () {
  this.timeout(30000)
  let server: TestServer
  before(async () => {
    server = await startServer({
      rateLimits: { ...defaults.rateLimits, loginsPerIp: { points: 3, durationMs: 60000 } }
    })
  })
  after(async () => server?.close())

  it('answers 429 once the per-IP login budget is spent', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++)
      statuses.push((await auth(server.url, { action: 'refreshAccessToken', refreshToken: 'a.b' })).status)
    assert.deepEqual(statuses, [401, 401, 401, 429])
  })
})
