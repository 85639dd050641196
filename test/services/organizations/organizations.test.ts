import assert from 'node:assert/strict'
import { startServer, restClient, signUp, type TestServer } from '../../helpers/app'

describe('organizations', () => {
  let server: TestServer
  let api: ReturnType<typeof restClient>
  before(async () => {
    server = await startServer()
    api = restClient(server.url)
  })
  after(() => server.close())

  it('lets a signed-in account create an organization and become its superadmin', async () => {
    const user = await signUp(server.url)
    const res = await api.post(
      '/organizations',
      { name: 'Bayview Lab', type: 'facility', types: ['laboratory'] },
      { token: user.token }
    )
    assert.equal(res.status, 201)
    assert.equal(res.body.createdBy, user.account.id)
    const members = await api.get(
      `/organization-members?organization=${res.body.id}&uid=${user.account.id}`,
      { token: user.token }
    )
    assert.equal(members.body.total, 1)
    assert.equal(members.body.data[0].superadmin, true)
  })

  it('refuses anonymous creation with 401 and a bad body with 400 naming the fields', async () => {
    assert.equal((await api.post('/organizations', { name: 'X', type: 'facility' })).status, 401)
    const user = await signUp(server.url)
    const bad = await api.post('/organizations', { name: '', kind: 'x' }, { token: user.token })
    assert.equal(bad.status, 400)
    assert.deepEqual(bad.body.errors.map((e: any) => e.field).sort(), ['kind', 'name', 'type'])
  })

  it('shows an organization to its members only (404 and absent from find for others)', async () => {
    const owner = await signUp(server.url, { organization: { name: 'Private Clinic', type: 'facility' } })
    const stranger = await signUp(server.url)
    assert.equal(
      (await api.get(`/organizations/${owner.organization.id}`, { token: owner.token })).status,
      200
    )
    assert.equal(
      (await api.get(`/organizations/${owner.organization.id}`, { token: stranger.token })).status,
      404
    )
    const list = await api.get('/organizations', { token: stranger.token })
    assert.equal(list.body.total, 0)
  })

  it('lets superadmins patch; plain members get 403; strangers 404', async () => {
    const owner = await signUp(server.url, { organization: { name: 'North Clinic', type: 'facility' } })
    const member = await signUp(server.url)
    const stranger = await signUp(server.url)
    const add = await api.post(
      '/organization-members',
      { organization: owner.organization.id, uid: member.account.id, roles: ['nurse'] },
      { token: owner.token }
    )
    assert.equal(add.status, 201)
    const ok = await api.patch(
      `/organizations/${owner.organization.id}`,
      { description: 'Open daily' },
      { token: owner.token }
    )
    assert.equal(ok.status, 200)
    assert.equal(ok.body.description, 'Open daily')
    assert.equal(
      (await api.patch(`/organizations/${owner.organization.id}`, { name: 'Mine' }, { token: member.token }))
        .status,
      403
    )
    assert.equal(
      (
        await api.patch(
          `/organizations/${owner.organization.id}`,
          { name: 'Mine' },
          { token: stranger.token }
        )
      ).status,
      404
    )
    assert.equal(
      (await api.get(`/organizations/${owner.organization.id}`, { token: member.token })).body.name,
      'North Clinic'
    )
  })

  it('removes an organization with its memberships and webhooks (superadmins only)', async () => {
    const owner = await signUp(server.url, { organization: { name: 'Short-lived', type: 'facility' } })
    const member = await signUp(server.url)
    await api.post(
      '/organization-members',
      { organization: owner.organization.id, uid: member.account.id },
      { token: owner.token }
    )
    const hook = await api.post(
      '/webhook-events',
      { organization: owner.organization.id, active: true, url: 'https://hooks.example.com/x', events: '*' },
      { token: owner.token }
    )
    assert.equal(hook.status, 201)
    assert.equal(
      (await api.delete(`/organizations/${owner.organization.id}`, { token: member.token })).status,
      403
    )
    assert.equal(
      (await api.delete(`/organizations/${owner.organization.id}`, { token: owner.token })).status,
      200
    )
    const left = await server.app
      .service('organization-members' as any)
      .find({ query: { organization: owner.organization.id }, paginate: false } as any)
    assert.deepEqual(left, [])
    const hooks = await server.app
      .service('webhooks' as any)
      .find({ query: { organization: owner.organization.id }, paginate: false } as any)
    assert.deepEqual(hooks, [])
  })
})
