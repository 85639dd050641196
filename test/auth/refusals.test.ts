// Clear refusals: the password policy speaks with one voice whatever the length, and an OAuth provider without a
// configured client is a 501 naming it (an empty client id counts as none), listed as unavailable at start-up.
import assert from 'node:assert/strict'
import { http, signUp, startServer, tempDir, uniqueEmail, type TestServer } from '../helpers/app'
import { startChild } from '../helpers/child'

describe('clear refusals', () => {
  let server: TestServer
  before(async () => {
    server = await startServer({ oauth: { google: { clientId: '', clientSecret: 'x' }, facebook: { clientId: '   ', clientSecret: '' } } })
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
      assert.deepEqual(res.body.data?.errors ?? res.body.errors, [{ field: 'password', message: 'must be at least 10 characters' }])
    }
    assert.deepEqual(answers, ["Invalid data: 'password' must be at least 10 characters", "Invalid data: 'password' must be at least 10 characters"])
  })

  it('refuses a short new password in changePassword with the same message', async () => {
    const user = await signUp(server.url)
    const res = await http(server.url, 'POST', '/authentication', { token: user.token, body: { action: 'changePassword', password: user.password, newPassword: 'Ab1!x' } })
    assert.equal(res.status, 400)
    assert.equal(res.body.message, "Invalid 'newPassword': must be at least 10 characters")
  })

  it('answers an OAuth login with a provider that has no client id with 501 "<provider> login is not configured"', async () => {
    for (const provider of ['google', 'facebook']) {
      const res = await http(server.url, 'POST', '/authentication', { body: { strategy: provider, redirectURI: 'https://app.example.test/cb/', code: 'abc' } })
      assert.equal(res.status, 501, provider)
      assert.equal(res.body.name, 'NotImplemented')
      assert.equal(res.body.message, `${provider} login is not configured`)
    }
  })

  it('answers linking a provider that is not configured with 501 too', async () => {
    const user = await signUp(server.url)
    const res = await http(server.url, 'POST', '/authentication', { token: user.token, body: { action: 'connectOAuthAccount', provider: 'google' } })
    assert.equal(res.status, 501)
    assert.equal(res.body.message, 'google login is not configured')
  })

  it('lists providers without a client as unavailable at start-up', async function () {
    this.timeout(60_000)
    const child = await startChild({ DATA_DIR: tempDir('clinic-refusals-'), LOG_LEVEL: 'info', GOOGLE_CLIENT_ID: 'configured-client', FACEBOOK_CLIENT_ID: '' })
    try {
      assert.match(child.output(), /OAuth login: google available; unavailable \(no client id\): facebook/)
    } finally {
      await child.kill('SIGTERM')
    }
  })
})
