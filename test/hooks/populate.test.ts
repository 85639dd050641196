import assert from 'node:assert/strict'
import { startServer, restClient, signUp, socketClient, type TestServer } from '../helpers/app'

describe('$populate', () => {
  let server: TestServer
  let api: ReturnType<typeof restClient>
  let owner: Awaited<ReturnType<typeof signUp>>
  let nurse: Awaited<ReturnType<typeof signUp>>
  let org: string
  before(async () => {
    server = await startServer()
    api = restClient(server.url)
    owner = await signUp(server.url, { organization: { name: 'Populate Clinic', type: 'facility' } })
    org = owner.organization.id
    nurse = await signUp(server.url)
    await api.post('/organization-members', { organization: org, uid: nurse.account.id, roles: ['nurse'] }, { token: owner.token })
  })
  after(() => server.close())

  it('resolves a reference with get and puts it under $populated.<name>', async () => {
    const q = `organization=${org}&uid=${nurse.account.id}&$populate[org][service]=organizations&$populate[org][localKey]=organization&$populate[org][$select][]=name`
    const res = await api.get(`/organization-members?${q}`, { token: nurse.token })
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.data[0].$populated.org).sort(), ['id', 'name'])
    assert.equal(res.body.data[0].$populated.org.name, 'Populate Clinic')
  })

  it('resolves with find and a foreignKey (all members of the organization of a membership)', async () => {
    const [membership] = (await api.get(`/organization-members?organization=${org}&uid=${nurse.account.id}`, { token: nurse.token })).body.data
    const q = `$populate[colleagues][service]=organization-members&$populate[colleagues][localKey]=organization&$populate[colleagues][foreignKey]=organization&$populate[colleagues][method]=find`
    const res = await api.get(`/organization-members/${membership.id}?${q}`, { token: nurse.token })
    assert.equal(res.status, 200)
    assert.equal(res.body.$populated.colleagues.length, 2)
  })

  it('comes back empty where the caller may not read the target', async () => {
    // The nurse may list the owner's membership but may not read the owner's account.
    const q = `organization=${org}&uid=${owner.account.id}&$populate[account][service]=accounts&$populate[account][localKey]=uid`
    const res = await api.get(`/organization-members?${q}`, { token: nurse.token })
    assert.equal(res.status, 200)
    assert.equal(res.body.data[0].$populated.account, null)
    const own = await api.get(`/organization-members?organization=${org}&uid=${nurse.account.id}&$populate[account][service]=accounts&$populate[account][localKey]=uid`, { token: nurse.token })
    assert.equal(own.body.data[0].$populated.account.id, nurse.account.id)
    assert.equal(own.body.data[0].$populated.account.password, undefined, 'populated documents pass the target hooks')
  })

  it('works through the Feathers client over Socket.IO with a JSON object', async () => {
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'local', email: nurse.email, password: nurse.password })
      const page = await socket.client.service('organization-members').find({
        query: { organization: org, $populate: { org: { service: 'organizations', localKey: 'organization' } } }
      })
      assert.ok(page.data.every((m: any) => m.$populated.org.id === org))
    } finally {
      socket.close()
    }
  })

  it('refuses services that did not opt in, unknown services and bad specs with 400', async () => {
    const unknown = await api.get(`/organizations?$populate[x][service]=nope`, { token: owner.token })
    assert.equal(unknown.status, 400)
    assert.equal(unknown.body.errors[0].field, '$populate.x.service')
    const badMethod = await api.get(`/organizations?$populate[x][service]=organizations&$populate[x][method]=remove`, { token: owner.token })
    assert.equal(badMethod.status, 400)
    const extraKey = await api.get(`/organizations?$populate[x][service]=organizations&$populate[x][query]=1`, { token: owner.token })
    assert.equal(extraKey.status, 400)
    const authentication = await api.get(`/organizations?$populate[x][service]=authentication`, { token: owner.token })
    assert.equal(authentication.status, 400)
  })

  it('bounds nesting depth', async () => {
    const nested = { service: 'organizations', localKey: 'organization' }
    const deep = { org: { ...nested, $populate: { again: { service: 'organization-members', localKey: 'id', foreignKey: 'organization', method: 'find', $populate: { more: nested } } } } }
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'local', email: nurse.email, password: nurse.password })
      await assert.rejects(socket.client.service('organization-members').find({ query: { organization: org, $populate: deep } }), { name: 'BadRequest' })
    } finally {
      socket.close()
    }
  })

  it('requires authentication like the direct call', async () => {
    const res = await api.get(`/organizations?$populate[x][service]=organizations`)
    assert.equal(res.status, 401)
  })
})
