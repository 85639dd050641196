// Clear refusals: the password policy speaks with one voice whatever the length, a login names its missing field,
// an access token is "invalid" or "expired" in words (with `data.reason` for programs), and an OAuth provider
// without a configured client is a 501 naming it (an empty client id counts as none), listed as unavailable at start-up.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import {
  http,
  signUp,
  socketClient,
  startServer,
  tempDir,
  uniqueEmail,
  type TestServer
} from '../helpers/app'
import { startChild } from '../helpers/child'

describe('clear refusals', () => {
  let server: TestServer
  before(async () => {
    server = await startServer({
      oauth: { google: { clientId: '', clientSecret: 'x' }, facebook: { clientId: '   ', clientSecret: '' } }
    })
  })
  after(async () => {
    await server.close()
  })

  it('refuses a 5- and a 9-character password at sign-up with the same policy message', async () => {
    const answers = []
    for (const password of ['Ab1!x', 'Ab1!xyzwv']) {
      const res = await http(server.url, 'POST', '/accounts', { body: { email: uniqueEmail(), password } })
      assert.equal(res.status, 400)
      answers.push(res.body.message)
      assert.deepEqual(res.body.data?.errors ?? res.body.errors, [
        { field: 'password', message: 'must be at least 10 characters' }
      ])
    }
    assert.deepEqual(answers, [
      "Invalid data: 'password' must be at least 10 characters",
      "Invalid data: 'password' must be at least 10 characters"
    ])
  })

  it('refuses a short new password in changePassword with the same message', async () => {
    const user = await signUp(server.url)
    const res = await http(server.url, 'POST', '/authentication', {
      token: user.token,
      body: { action: 'changePassword', password: user.password, newPassword: 'Ab1!x' }
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.message, "Invalid 'newPassword': must be at least 10 characters")
  })

  it('answers an OAuth login with a provider that has no client id with 501 "<provider> login is not configured"', async () => {
    for (const provider of ['google', 'facebook']) {
      const res = await http(server.url, 'POST', '/authentication', {
        body: { strategy: provider, redirectURI: 'https://app.example.test/cb/', code: 'abc' }
      })
      assert.equal(res.status, 501, provider)
      assert.equal(res.body.name, 'NotImplemented')
      assert.equal(res.body.message, `${provider} login is not configured`)
    }
  })

  it('answers linking a provider that is not configured with 501 too', async () => {
    const user = await signUp(server.url)
    const res = await http(server.url, 'POST', '/authentication', {
      token: user.token,
      body: { action: 'connectOAuthAccount', provider: 'google' }
    })
    assert.equal(res.status, 501)
    assert.equal(res.body.message, 'google login is not configured')
  })

  it('names the missing field of a password login ("email is required"), not a missing strategy', async () => {
    const missingEmail = await http(server.url, 'POST', '/authentication', {
      body: { password: 'whatever password' }
    })
    assert.equal(missingEmail.status, 400)
    assert.equal(missingEmail.body.message, "Invalid login: 'email' is required")
    assert.deepEqual(missingEmail.body.errors, [{ field: 'email', message: 'is required' }])
    const empty = await http(server.url, 'POST', '/authentication', { body: {} })
    assert.deepEqual(
      [empty.status, empty.body.errors],
      [
        400,
        [
          { field: 'email', message: 'is required' },
          { field: 'password', message: 'is required' }
        ]
      ]
    )
  })

  it('says "password is required" for a missing password, and "must be a string" only for one of another type', async () => {
    const missing = await http(server.url, 'POST', '/authentication', {
      body: { email: 'someone@example.test', password: '' }
    })
    assert.deepEqual(
      [missing.status, missing.body.message, missing.body.errors],
      [400, "Invalid login: 'password' is required", [{ field: 'password', message: 'is required' }]]
    )
    const number = await http(server.url, 'POST', '/authentication', {
      body: { email: 'someone@example.test', password: 42 }
    })
    assert.deepEqual(
      [number.status, number.body.errors],
      [400, [{ field: 'password', message: 'must be a string' }]]
    )
  })

  it('says in words whether an access token is invalid or expired, over REST and Socket.IO, with a machine-readable reason', async () => {
    const user = await signUp(server.url)
    const authentication: any = server.app.service('authentication' as any) // (test set-up: tokens the server would refuse)
    const expired = await authentication.createAccessToken(
      { sub: user.account.id, sv: 0 },
      { expiresIn: -10 }
    )
    const forged = await authentication.createAccessToken(
      { sub: user.account.id, sv: 0 },
      {},
      crypto.randomBytes(48).toString('base64')
    )
    const invalid = { message: 'The access token is invalid', reason: 'token-invalid' }
    const cases = [
      { token: 'not-a-token', expected: invalid },
      { token: forged, expected: invalid },
      {
        token: expired,
        expected: { message: 'The access token has expired; sign in again', reason: 'token-expired' }
      }
    ]
    for (const { token, expected } of cases) {
      const res = await http(server.url, 'GET', `/accounts/${user.account.id}`, { token })
      assert.equal(res.status, 401)
      assert.deepEqual({ message: res.body.message, reason: res.body.data?.reason }, expected)
      const { client, close } = socketClient(server.url)
      try {
        const refused: any = await client
          .service('authentication')
          .create({ strategy: 'jwt', accessToken: token })
          .then(
            () => assert.fail('the token was accepted'),
            (error: any) => error
          )
        assert.deepEqual(
          { code: refused.code, message: refused.message, reason: refused.data?.reason },
          { code: 401, ...expected }
        )
      } finally {
        close()
      }
    }
  })

  it('lists providers without a client as unavailable at start-up', async function () {
    this.timeout(60_000)
    const child = await startChild({
      DATA_DIR: tempDir('clinic-refusals-'),
      LOG_LEVEL: 'info',
      GOOGLE_CLIENT_ID: 'configured-client',
      FACEBOOK_CLIENT_ID: ''
    })
    try {
      assert.match(child.output(), /OAuth login: google available; unavailable \(no client id\): facebook/)
    } finally {
      await child.kill('SIGTERM')
    }
  })
})
