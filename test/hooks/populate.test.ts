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
    await api.post(
      '/organization-members',
      { organization: org, uid: nurse.account.id, roles: ['nurse'] },
      { token: owner.token }
    )
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
    const [membership] = (
      await api.get(`/organization-members?organization=${org}&uid=${nurse.account.id}`, {
        token: nurse.token
      })
    ).body.data
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
    const own = await api.get(
      `/organization-members?organization=${org}&uid=${nurse.account.id}&$populate[account][service]=accounts&$populate[account][localKey]=uid`,
      { token: nurse.token }
    )
    assert.equal(own.body.data[0].$populated.account.id, nurse.account.id)
    assert.equal(
      own.body.data[0].$populated.account.password,
      undefined,
      'populated documents pass the target hooks'
    )
  })

  it('works through the Feathers client over Socket.IO with a JSON object', async () => {
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'local', email: nurse.email, password: nurse.password })
      const page = await socket.client.service('organization-members').find({
        query: {
          organization: org,
          $populate: { org: { service: 'organizations', localKey: 'organization' } }
        }
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
    const badMethod = await api.get(
      `/organizations?$populate[x][service]=organizations&$populate[x][method]=remove`,
      { token: owner.token }
    )
    assert.equal(badMethod.status, 400)
    const extraKey = await api.get(
      `/organizations?$populate[x][service]=organizations&$populate[x][query]=1`,
      { token: owner.token }
    )
    assert.equal(extraKey.status, 400)
    const authentication = await api.get(`/organizations?$populate[x][service]=authentication`, {
      token: owner.token
    })
    assert.equal(authentication.status, 400)
  })

  it('bounds nesting depth', async () => {
    const nested = { service: 'organizations', localKey: 'organization' }
    const deep = {
      org: {
        ...nested,
        $populate: {
          again: {
            service: 'organization-members',
            localKey: 'id',
            foreignKey: 'organization',
            method: 'find',
            $populate: { more: nested }
          }
        }
      }
    }
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'local', email: nurse.email, password: nurse.password })
      await assert.rejects(
        socket.client.service('organization-members').find({ query: { organization: org, $populate: deep } }),
        { name: 'BadRequest' }
      )
    } finally {
      socket.close()
    }
  })

  it('requires authentication like the direct call', async () => {
    const res = await api.get(`/organizations?$populate[x][service]=organizations`)
    assert.equal(res.status, 401)
  })

  describe('maxFanOut bounds the lookups of the whole request, at every depth', () => {
    // 5 memberships; each resolves itself (5 lookups), and each of those resolves itself again (5 more, one per
    // nested call): 10 lookups in all, while no single level needs more than 5.
    const twoLevels = {
      self: {
        service: 'organization-members',
        localKey: 'id',
        $populate: { again: { service: 'organization-members', localKey: 'id' } }
      }
    }
    const twoLevelsRest =
      '$populate[self][service]=organization-members&$populate[self][localKey]=id' +
      '&$populate[self][$populate][again][service]=organization-members&$populate[self][$populate][again][localKey]=id'

    const startWith = async (maxFanOut: number) => {
      const started = await startServer({ populate: { maxDepth: 2, maxFanOut } })
      const head = await signUp(started.url, { organization: { name: 'Fan-out Clinic', type: 'facility' } })
      for (let i = 0; i < 4; i++) {
        const member = await signUp(started.url)
        const added = await restClient(started.url, head.token).post('/organization-members', {
          organization: head.organization.id,
          uid: member.account.id,
          roles: ['nurse']
        })
        assert.equal(added.status, 201, JSON.stringify(added.body))
      }
      return { started, head }
    }

    it('refuses with 400 when the levels together need more than maxFanOut (6), over REST and Socket.IO', async () => {
      const { started, head } = await startWith(6)
      try {
        const plain = await restClient(started.url, head.token).get(
          `/organization-members?organization=${head.organization.id}`
        )
        assert.equal(plain.body.total, 5)
        const oneLevel = await restClient(started.url, head.token).get(
          `/organization-members?organization=${head.organization.id}&$populate[self][service]=organization-members&$populate[self][localKey]=id`
        )
        assert.equal(oneLevel.status, 200, 'one level alone stays within the budget')
        const res = await restClient(started.url, head.token).get(
          `/organization-members?organization=${head.organization.id}&${twoLevelsRest}`
        )
        assert.equal(res.status, 400, JSON.stringify(res.body))
        assert.equal(res.body.name, 'BadRequest')
        assert.match(res.body.message, /more than 6 lookups/)
        const socket = socketClient(started.url)
        try {
          await socket.client.authenticate({ strategy: 'local', email: head.email, password: head.password })
          await assert.rejects(
            socket.client
              .service('organization-members')
              .find({ query: { organization: head.organization.id, $populate: twoLevels } }),
            { name: 'BadRequest', code: 400 }
          )
        } finally {
          socket.close()
        }
      } finally {
        await started.close()
      }
    })

    it('answers 200 with both levels resolved when maxFanOut (10) covers them', async () => {
      const { started, head } = await startWith(10)
      try {
        const res = await restClient(started.url, head.token).get(
          `/organization-members?organization=${head.organization.id}&${twoLevelsRest}`
        )
        assert.equal(res.status, 200, JSON.stringify(res.body))
        assert.equal(res.body.data.length, 5)
        for (const membership of res.body.data) {
          assert.equal(membership.$populated.self.id, membership.id)
          assert.equal(membership.$populated.self.$populated.again.id, membership.id)
        }
      } finally {
        await started.close()
      }
    })
  })
})
