import assert from 'node:assert/strict'
import fs from 'node:fs'
import { restClient, signUp, tempDir, testMongoUrl } from '../helpers/app'
import { startServerProcess } from '../helpers/server-process'

describe('persistence across crashes (server as a child process)', function () {
  // (two child-process start-ups, each compiling the app: slow on a loaded machine)
  this.timeout(90000)
  const dataDir = tempDir()
  const mongodb = testMongoUrl()
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }))

  it('keeps accounts, organizations and tokens after kill -9 and a restart', async () => {
    const env = { DATA_DIR: dataDir, MONGODB_URL: mongodb }
    const first = await startServerProcess(env)
    let user
    try {
      user = await signUp(first.url, { organization: { name: 'Durable Clinic', type: 'facility' } })
      const patched = await restClient(first.url, user.token).patch(`/accounts/${user.account.id}`, {
        lastName: 'Durable'
      })
      assert.equal(patched.status, 200)
    } finally {
      await first.kill('SIGKILL')
    }

    const second = await startServerProcess(env)
    try {
      const api = restClient(second.url)
      // The token issued before the crash is still valid: the development secret persisted in DATA_DIR.
      const me = await api.get(`/accounts/${user.account.id}`, { token: user.token })
      assert.equal(me.status, 200)
      assert.equal(me.body.lastName, 'Durable')
      const login = await api.post('/authentication', { email: user.email, password: user.password })
      assert.equal(login.status, 201)
      const org = await api.get(`/organizations/${user.organization.id}`, { token: login.body.accessToken })
      assert.equal(org.body.name, 'Durable Clinic')
      const dup = await api.post('/accounts', { email: user.email, password: 'another password' })
      assert.equal(dup.status, 409, 'the unique index is rebuilt after restart')
    } finally {
      await second.kill('SIGKILL')
    }
  })

  it('refuses to start in production without AUTH_SECRET, with a clear message', async () => {
    const failed = await startServerProcess({
      DATA_DIR: dataDir,
      NODE_ENV: 'production',
      AUTH_SECRET: '',
      ALLOW_SANDBOX_PAYMENTS: 'true'
    }).then(
      async (server) => {
        await server.kill()
        return null
      },
      (error) => error
    )
    assert.ok(failed, 'the server must not start')
    assert.equal(failed.code, 1)
    assert.match(failed.output, /AUTH_SECRET is not set/)
  })
})
