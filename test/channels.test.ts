import assert from 'node:assert/strict'
import {
  startServer,
  restClient,
  signUp,
  socketClient,
  recordEvents,
  sleep,
  waitUntil,
  type TestServer
} from './helpers/app'

describe('realtime visibility (Socket.IO channels)', () => {
  let server: TestServer
  let api: ReturnType<typeof restClient>
  const sockets: { close(): void }[] = []
  before(async () => {
    server = await startServer()
    api = restClient(server.url)
  })
  after(async () => {
    sockets.forEach((s) => s.close())
    await server.close()
  })

  const connect = async (user?: { email: string; password: string }) => {
    const socket = socketClient(server.url)
    sockets.push(socket)
    if (user)
      await socket.client.authenticate({ strategy: 'local', email: user.email, password: user.password })
    return socket.client
  }

  it('sends an account its own events and nothing of them to a second account or an anonymous socket', async () => {
    const first = await signUp(server.url)
    const second = await signUp(server.url)
    const firstClient = await connect(first)
    const secondClient = await connect(second)
    const anonymous = await connect()
    const seenByFirst = recordEvents(firstClient, 'accounts')
    const seenBySecond = recordEvents(secondClient, 'accounts')
    const seenByAnonymous = recordEvents(anonymous, 'accounts')
    const secondOrgs = recordEvents(secondClient, 'organizations')
    const anonymousOrgs = recordEvents(anonymous, 'organizations')

    await api.patch(`/accounts/${first.account.id}`, { firstName: 'Private' }, { token: first.token })
    await api.post('/organizations', { name: 'First Clinic', type: 'facility' }, { token: first.token })
    await waitUntil(() => seenByFirst.length === 1, 5000, 'own patched event')
    await sleep(300)
    assert.equal(seenByFirst[0].event, 'patched')
    assert.equal(seenByFirst[0].data.firstName, 'Private')
    assert.equal(seenByFirst[0].data.password, undefined, 'no hash in events')
    assert.deepEqual(seenBySecond, [])
    assert.deepEqual(seenByAnonymous, [])
    assert.deepEqual(secondOrgs, [])
    assert.deepEqual(anonymousOrgs, [])
  })

  it('lets the same calls be made through the Feathers client over Socket.IO with the same rules', async () => {
    const owner = await signUp(server.url)
    const other = await signUp(server.url)
    const client = await connect(owner)
    const me = await client.service('accounts').get(owner.account.id)
    assert.equal(me.email, owner.email)
    assert.equal('password' in me, false)
    await assert.rejects(client.service('accounts').get(other.account.id), { name: 'NotFound' })
    const anonymous = await connect()
    await assert.rejects(anonymous.service('accounts').get(owner.account.id), { name: 'NotAuthenticated' })
  })

  it('delivers organization events to members, including one added while connected', async () => {
    const owner = await signUp(server.url, { organization: { name: 'Live Clinic', type: 'facility' } })
    const joiner = await signUp(server.url)
    const joinerClient = await connect(joiner)
    const seen: { event: string; data: any }[] = recordEvents(joinerClient, 'organizations')
    await api.patch(
      `/organizations/${owner.organization.id}`,
      { description: 'before joining' },
      { token: owner.token }
    )
    await sleep(200)
    assert.equal(seen.length, 0, 'not a member yet')
    await api.post(
      '/organization-members',
      { organization: owner.organization.id, uid: joiner.account.id },
      { token: owner.token }
    )
    await sleep(200)
    await api.patch(
      `/organizations/${owner.organization.id}`,
      { description: 'after joining' },
      { token: owner.token }
    )
    await waitUntil(() => seen.length === 1, 5000, 'organization patched event')
    assert.equal(seen[0].data.description, 'after joining')
  })

  it('stops events after logout', async () => {
    const user = await signUp(server.url)
    const client = await connect(user)
    const seen = recordEvents(client, 'accounts')
    await client.logout()
    await api.patch(`/accounts/${user.account.id}`, { firstName: 'Gone' }, { token: user.token })
    await sleep(300)
    assert.deepEqual(seen, [])
  })
})
