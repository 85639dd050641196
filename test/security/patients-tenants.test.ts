// Tenant isolation of /patients, method × caller × transport. `owner` is facility A's superadmin; `member` a plain
// member of A (reads A's patients, may not register one); `outsider` the superadmin of facility B; `anonymous`
// has no token. A patient the caller cannot read is 404, registering where the caller is a member without the
// right 403, no token 401; patch, update and remove are not exposed (405). The outsider's search of A is empty.
import assert from 'node:assert/strict'
import {
  http,
  recordEvents,
  signUp,
  socketClient,
  startServer,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { callMethod } from '../helpers/tenants'

type Caller = 'owner' | 'member' | 'outsider' | 'anonymous'
type Method = 'find' | 'get' | 'create' | 'patch' | 'remove' | 'update'
const callers: Caller[] = ['anonymous', 'outsider', 'member', 'owner']
const methods: Method[] = ['find', 'get', 'create', 'patch', 'remove', 'update']

const expected = (method: Method, caller: Caller): number => {
  if (method === 'patch' || method === 'remove' || method === 'update') return 405
  if (caller === 'anonymous') return 401
  if (method === 'find') return 200
  if (method === 'get') return caller === 'outsider' ? 404 : 200
  return { owner: 201, member: 403, outsider: 404 }[caller]
}

describe('patients tenant isolation (method × caller × transport)', function () {
  this.timeout(120000)
  let server: TestServer
  let owner: SignedUp
  let member: SignedUp
  let outsider: SignedUp
  let facility: string
  let fixture: string
  let fixturePatient: string
  let counter = 0
  const sockets: Partial<Record<Caller, ReturnType<typeof socketClient>>> = {}
  const token = (caller: Caller) =>
    ({ owner: owner.token, member: member.token, outsider: outsider.token, anonymous: undefined })[caller]
  const dataFor = (method: Method) =>
    method === 'create'
      ? { facility, firstName: 'Pat', lastName: 'Ient', email: `pat-${++counter}@example.org` }
      : method === 'patch' || method === 'update'
        ? { firstName: 'Renamed' }
        : undefined

  before(async () => {
    server = await startServer()
    ;[owner, member, outsider] = await Promise.all([
      signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } }),
      signUp(server.url),
      signUp(server.url, { organization: { name: 'Clinic B', type: 'facility' } })
    ])
    facility = owner.organization.id
    const joined = await http(server.url, 'POST', '/organization-members', {
      token: owner.token,
      body: { organization: facility, uid: member.account.id }
    })
    assert.equal(joined.status, 201, JSON.stringify(joined.body))
    const registered = await http(server.url, 'POST', '/patients', {
      token: owner.token,
      body: { facility, firstName: 'Fixture', lastName: 'Patient', email: 'fixture@example.org' }
    })
    assert.equal(registered.status, 201, JSON.stringify(registered.body))
    fixture = registered.body.id
    fixturePatient = registered.body.patient
    for (const caller of callers) {
      const socket = socketClient(server.url)
      const accessToken = token(caller)
      if (accessToken) await socket.client.authenticate({ strategy: 'jwt', accessToken })
      sockets[caller] = socket
    }
  })
  after(async () => {
    for (const socket of Object.values(sockets)) socket?.close()
    await server?.close()
  })

  const restCall = async (caller: Caller, method: Method) => {
    const verb = { find: 'GET', get: 'GET', create: 'POST', patch: 'PATCH', remove: 'DELETE', update: 'PUT' }[
      method
    ]
    const path =
      method === 'find'
        ? `/patients?facility=${facility}&q=fix`
        : method === 'create'
          ? '/patients'
          : `/patients/${fixture}`
    const res = await http(server.url, verb, path, { token: token(caller), body: dataFor(method) })
    return { status: res.status, body: res.body }
  }

  const socketCall = async (caller: Caller, method: Method) => {
    try {
      const result = await callMethod(
        (sockets[caller] as ReturnType<typeof socketClient>).client,
        'patients',
        method,
        fixture,
        dataFor(method),
        { facility, q: 'fix' }
      )
      return { status: method === 'create' ? 201 : 200, body: result }
    } catch (error: any) {
      // Socket.IO: a method the service does not expose is refused by the transport ("not a valid method").
      const status =
        typeof error.code === 'number'
          ? error.code
          : /not.*method|method.*not/i.test(error.message)
            ? 405
            : 500
      return { status, body: error }
    }
  }

  for (const transport of ['rest', 'socket'] as const) {
    for (const caller of callers) {
      for (const method of methods) {
        const want = expected(method, caller)
        it(`${transport} · ${caller} · ${method} → ${want}`, async () => {
          const outcome = await (transport === 'rest' ? restCall : socketCall)(caller, method)
          assert.equal(outcome.status, want, JSON.stringify(outcome.body))
          if (method === 'find' && want === 200) {
            const ids = (outcome.body.data ?? []).map((p: any) => p.id)
            assert.equal(ids.includes(fixture), caller !== 'outsider')
            if (caller === 'outsider') assert.equal(outcome.body.total, 0)
          }
          if (outcome.status < 300 && outcome.body && typeof outcome.body === 'object')
            assert.equal(JSON.stringify(outcome.body).includes('nameKeys'), false)
        })
      }
    }
  }

  it('leaves nothing of A to the outsider: by id, by patient, by search, and no realtime event', async () => {
    for (const path of [
      `/patients/${fixture}`,
      `/patients/${fixture}?facility=${facility}`,
      `/patients?facility=${facility}&patient=${fixturePatient}`,
      `/patients?facility=${facility}`
    ]) {
      const res = await http(server.url, 'GET', path, { token: outsider.token })
      assert.ok([200, 404].includes(res.status), `${path}: ${res.status}`)
      if (res.status === 200) assert.equal(res.body.total, 0, path)
    }
    const memberSeen = recordEvents(sockets.member!.client, 'patients')
    const outsiderSeen = recordEvents(sockets.outsider!.client, 'patients')
    const anonymousSeen = recordEvents(sockets.anonymous!.client, 'patients')
    const registered = await http(server.url, 'POST', '/patients', {
      token: owner.token,
      body: { facility, firstName: 'Live', email: 'live@example.org' }
    })
    assert.equal(registered.status, 201, JSON.stringify(registered.body))
    await waitUntil(
      () => memberSeen.some((e) => e.data.id === registered.body.id),
      5000,
      'the member’s event'
    )
    // The outsider's and the anonymous connection's events would have arrived with the member's (one emit).
    const marker = await http(server.url, 'POST', '/patients', {
      token: owner.token,
      body: { facility, firstName: 'Marker', email: 'marker@example.org' }
    })
    await waitUntil(() => memberSeen.some((e) => e.data.id === marker.body.id), 5000, 'the second event')
    assert.deepEqual([outsiderSeen, anonymousSeen], [[], []])
  })
})
