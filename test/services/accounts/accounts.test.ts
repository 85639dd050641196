import assert from 'node:assert/strict'
import fs from 'node:fs'
import {
  startServer,
  restClient,
  signUp,
  uniqueEmail,
  tempDir,
  testMongoUrl,
  type TestServer
} from '../../helpers/app'

describe('accounts', () => {
  let server: TestServer
  let api: ReturnType<typeof restClient>
  const adminEmail = 'admin@clinic.test'
  const adminPassword = 'admin password 1'

  before(async () => {
    server = await startServer({ admin: { email: adminEmail, password: adminPassword } })
    api = restClient(server.url)
  })
  after(() => server.close())

  describe('sign-up', () => {
    it('creates an account with a normalised email and returns it without any secret', async () => {
      const email = uniqueEmail('Signup')
      const res = await api.post('/accounts', {
        email: `  ${email.toUpperCase()} `,
        password: 'long enough pw',
        firstName: 'Ana',
        mobileNo: '+63 912 345 6789'
      })
      assert.equal(res.status, 201)
      assert.equal(res.body.email, email.toLowerCase())
      assert.equal(res.body.firstName, 'Ana')
      assert.equal(typeof res.body.id, 'string')
      assert.equal(typeof res.body.createdAt, 'number')
      assert.equal(res.body.password, undefined)
      assert.equal(res.body._id, undefined)
      assert.ok(!JSON.stringify(res.body).includes('$2'), 'no bcrypt hash anywhere')
    })

    it('refuses a duplicate email, also as a case or whitespace variant, with 409', async () => {
      const email = uniqueEmail('dup')
      assert.equal((await api.post('/accounts', { email, password: 'long enough pw' })).status, 201)
      const again = await api.post('/accounts', {
        email: ` ${email.toUpperCase()}`,
        password: 'other password'
      })
      assert.equal(again.status, 409)
      assert.equal(again.body.name, 'Conflict')
      assert.deepEqual(again.body.errors, [{ field: 'email', message: 'is already registered' }])
    })

    it('creates one account when the same email signs up several times at once, answering the others 409', async () => {
      const email = uniqueEmail('race')
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => api.post('/accounts', { email, password: `long enough pw ${i}` }))
      )
      assert.deepEqual(answers.map((res) => res.status).sort(), [201, 409, 409, 409, 409, 409])
      const admin = (await api.post('/authentication', { email: adminEmail, password: adminPassword })).body
        .accessToken
      const found = await api.get(`/accounts?email=${encodeURIComponent(email)}`, { token: admin })
      assert.equal(found.body.total, 1)
    })

    it('names every offending field of a bad body with 400', async () => {
      const res = await api.post('/accounts', { email: 'not-an-email', password: 'short', nickname: 'x' })
      assert.equal(res.status, 400)
      const fields = res.body.errors.map((e: any) => e.field).sort()
      assert.deepEqual(fields, ['email', 'nickname', 'password'])
    })

    it('refuses a password weaker than the password policy with 400 naming it', async () => {
      const email = uniqueEmail('weak')
      const oneClass = await api.post('/accounts', { email, password: 'aaaaaaaaaaaa' })
      assert.equal(oneClass.status, 400)
      assert.deepEqual(
        oneClass.body.errors.map((e: any) => e.field),
        ['password']
      )
      const sameAsEmail = await api.post('/accounts', { email, password: email })
      assert.equal(sameAsEmail.status, 400)
    })

    it('requires email and password', async () => {
      const res = await api.post('/accounts', {})
      assert.equal(res.status, 400)
      assert.deepEqual(res.body.errors.map((e: any) => e.field).sort(), ['email', 'password'])
    })

    it('does not let the client set server-owned fields', async () => {
      const res = await api.post('/accounts', {
        email: uniqueEmail(),
        password: 'long enough pw',
        admin: true,
        createdAt: 1,
        id: 'mine'
      })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body.errors.map((e: any) => e.field).sort(), ['admin', 'createdAt', 'id'])
    })

    it('creates the organization of the body with the new account as its superadmin', async () => {
      const user = await signUp(server.url, {
        organization: { name: 'Sunrise Clinic', type: 'facility', types: ['clinic'] }
      })
      assert.equal(user.organization.name, 'Sunrise Clinic')
      assert.equal(user.organization.createdBy, user.account.id)
      const members = await api.get(`/organization-members?organization=${user.organization.id}`, {
        token: user.token
      })
      assert.equal(members.status, 200)
      assert.equal(members.body.total, 1)
      assert.equal(members.body.data[0].uid, user.account.id)
      assert.equal(members.body.data[0].superadmin, true)
    })

    it('writes nothing when the organization part is invalid', async () => {
      const email = uniqueEmail('orgless')
      const res = await api.post('/accounts', {
        email,
        password: 'long enough pw',
        organization: { type: 'facility' }
      })
      assert.equal(res.status, 400)
      assert.deepEqual(
        res.body.errors.map((e: any) => e.field),
        ['organization.name']
      )
      const login = await api.post('/authentication', { email, password: 'long enough pw' })
      assert.equal(login.status, 401)
    })
  })

  describe('reading and changing accounts', () => {
    it('lets an account read itself', async () => {
      const user = await signUp(server.url)
      const res = await api.get(`/accounts/${user.account.id}`, { token: user.token })
      assert.equal(res.status, 200)
      assert.equal(res.body.email, user.email)
      assert.equal(res.body.password, undefined)
    })

    it('answers 401 without a token and with a bad token', async () => {
      const user = await signUp(server.url)
      assert.equal((await api.get(`/accounts/${user.account.id}`)).status, 401)
      const bad = await api.get(`/accounts/${user.account.id}`, { token: `${user.token}x` })
      assert.equal(bad.status, 401)
      assert.equal(bad.body.name, 'NotAuthenticated')
    })

    it('hides other accounts: 404 on get, absent from find', async () => {
      const a = await signUp(server.url)
      const b = await signUp(server.url)
      assert.equal((await api.get(`/accounts/${b.account.id}`, { token: a.token })).status, 404)
      const list = await api.get('/accounts', { token: a.token })
      assert.equal(list.status, 200)
      assert.deepEqual(
        list.body.data.map((x: any) => x.id),
        [a.account.id]
      )
      const byEmail = await api.get(`/accounts?email=${encodeURIComponent(b.email)}`, { token: a.token })
      assert.equal(byEmail.body.total, 0)
    })

    it('lets an account patch its own name fields but not its identity', async () => {
      const user = await signUp(server.url)
      const ok = await api.patch(`/accounts/${user.account.id}`, { lastName: 'Reyes' }, { token: user.token })
      assert.equal(ok.status, 200)
      assert.equal(ok.body.lastName, 'Reyes')
      assert.equal(ok.body.password, undefined)
      const email = await api.patch(
        `/accounts/${user.account.id}`,
        { email: 'new@example.test' },
        { token: user.token }
      )
      assert.equal(email.status, 400)
      assert.equal(email.body.errors[0].field, 'email')
      const password = await api.patch(
        `/accounts/${user.account.id}`,
        { password: 'new password 1' },
        { token: user.token }
      )
      assert.equal(password.status, 400)
    })

    it('refuses patching another account (404, since it cannot be read)', async () => {
      const a = await signUp(server.url)
      const b = await signUp(server.url)
      assert.equal(
        (await api.patch(`/accounts/${b.account.id}`, { lastName: 'X' }, { token: a.token })).status,
        404
      )
    })

    it('lets the application admin read every account but not patch others (403)', async () => {
      const other = await signUp(server.url)
      const login = await api.post('/authentication', { email: adminEmail, password: adminPassword })
      assert.equal(login.status, 201)
      assert.equal(login.body.account.admin, true)
      const token = login.body.accessToken
      const read = await api.get(`/accounts/${other.account.id}`, { token })
      assert.equal(read.status, 200)
      assert.equal(read.body.password, undefined)
      const list = await api.get('/accounts?$limit=100', { token })
      assert.ok(list.body.total >= 2)
      assert.ok(list.body.data.every((x: any) => x.password === undefined))
      assert.equal(
        (await api.patch(`/accounts/${other.account.id}`, { lastName: 'X' }, { token })).status,
        403
      )
    })

    it('lets only the admin remove accounts, with their memberships', async () => {
      const user = await signUp(server.url)
      const owner = await signUp(server.url, { organization: { name: 'Leaving Clinic', type: 'facility' } })
      await api.post(
        '/organization-members',
        { organization: owner.organization.id, uid: user.account.id },
        { token: owner.token }
      )
      assert.equal((await api.delete(`/accounts/${user.account.id}`, { token: user.token })).status, 403)
      const admin = await api.post('/authentication', { email: adminEmail, password: adminPassword })
      const removed = await api.delete(`/accounts/${user.account.id}`, { token: admin.body.accessToken })
      assert.equal(removed.status, 200)
      assert.equal(removed.body.password, undefined)
      assert.equal(
        (await api.post('/authentication', { email: user.email, password: user.password })).status,
        401
      )
      const members = await api.get(`/organization-members?organization=${owner.organization.id}`, {
        token: owner.token
      })
      assert.deepEqual(
        members.body.data.map((m: any) => m.uid),
        [owner.account.id]
      )
    })

    it('paginates lists with the configured default and maximum page size', async () => {
      const admin = await api.post('/authentication', { email: adminEmail, password: adminPassword })
      const res = await api.get('/accounts?$limit=1000', { token: admin.body.accessToken })
      assert.equal(res.body.limit, server.app.get('paginate').max)
      const page = await api.get('/accounts?$limit=1&$skip=1&$sort[createdAt]=1', {
        token: admin.body.accessToken
      })
      assert.equal(page.body.data.length, 1)
      assert.equal(page.body.skip, 1)
    })
  })

  describe('the application admin from ADMIN_EMAIL/ADMIN_PASSWORD', () => {
    it('is created once; a restart on the same data changes nothing', async () => {
      const dataDir = tempDir()
      const admin = { email: 'Boss@Clinic.test', password: 'boss password 1' }
      const mongodb = testMongoUrl()
      const first = await startServer({ dataDir, mongodb, admin })
      await first.close({ keep: true })
      const second = await startServer({ dataDir, mongodb, admin })
      try {
        const login = await restClient(second.url).post('/authentication', {
          email: 'boss@clinic.test',
          password: admin.password
        })
        assert.equal(login.status, 201)
        assert.equal(login.body.account.admin, true)
        const list = await restClient(second.url).get('/accounts?email=boss@clinic.test', {
          token: login.body.accessToken
        })
        assert.equal(list.body.total, 1)
      } finally {
        await second.close()
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    })
  })
})
