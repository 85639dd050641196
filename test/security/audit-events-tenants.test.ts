// Tenant isolation of /audit-events, method × caller × transport. Organization A has a superadmin (`owner`) and a
// plain member (`member`: no roles, no privileges); `outsider` is the superadmin of organization B. The audit event
// under test: the owner's read of a medical record of A about a third account. Its facility's superadmin sees it;
// the member (neither its actor nor its patient nor the account it is about) and the outsider do not (find leaves it out, get is 404); no token
// is 401; create, patch, update and remove are 405 for everyone on both transports.
import assert from 'node:assert/strict'
import { http, signUp, socketClient, startServer, type SignedUp, type TestServer } from '../helpers/app'
import { rawEmit } from '../helpers/tenants'

type Caller = 'owner' | 'member' | 'outsider' | 'anonymous'
const callers: Caller[] = ['anonymous', 'outsider', 'member', 'owner']

const expectedGet: Record<Caller, number> = { owner: 200, member: 404, outsider: 404, anonymous: 401 }

describe('tenant isolation of audit-events (method × caller × transport)', function () {
  this.timeout(60000)
  let server: TestServer
  let owner: SignedUp
  let member: SignedUp
  let outsider: SignedUp
  let patient: SignedUp
  let eventId: string
  const sockets: Partial<Record<Caller, ReturnType<typeof socketClient>>> = {}
  const tokenOf = (caller: Caller) =>
    ({ owner: owner.token, member: member.token, outsider: outsider.token, anonymous: undefined })[caller]

  before(async () => {
    server = await startServer()
    ;[owner, member, outsider, patient] = await Promise.all([
      signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } }),
      signUp(server.url),
      signUp(server.url, { organization: { name: 'Clinic B', type: 'facility' } }),
      signUp(server.url)
    ])
    const joined = await http(server.url, 'POST', '/organization-members', {
      token: owner.token,
      body: { organization: owner.organization.id, uid: member.account.id }
    })
    assert.equal(joined.status, 201, JSON.stringify(joined.body))
    const record = await http(server.url, 'POST', '/medical-records', {
      token: owner.token,
      body: {
        type: 'allergy',
        facility: owner.organization.id,
        patient: patient.account.id,
        name: 'Latex',
        permissions: [{ organization: owner.organization.id }]
      }
    })
    assert.equal(record.status, 200, JSON.stringify(record.body))
    const read = await http(server.url, 'GET', `/medical-records/${record.body.id}`, {
      token: owner.token,
      headers: { 'x-request-id': 'tenant-read' }
    })
    assert.equal(read.status, 200)
    const own = await http(server.url, 'GET', '/audit-events?action=read&service=medical-records', {
      token: owner.token
    })
    const event = own.body.data.find((e: any) => e.requestId === 'tenant-read')
    assert.ok(event, JSON.stringify(own.body))
    assert.equal(event.facility, owner.organization.id)
    eventId = event.id
    for (const caller of callers) {
      const socket = socketClient(server.url)
      const token = tokenOf(caller)
      if (token) await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
      sockets[caller] = socket
    }
  })
  after(async () => {
    for (const socket of Object.values(sockets)) socket?.close()
    await server?.close()
  })

  for (const caller of callers) {
    describe(`${caller}`, () => {
      it('REST find and get', async () => {
        const found = await http(server.url, 'GET', '/audit-events?$limit=100', { token: tokenOf(caller) })
        if (caller === 'anonymous') {
          assert.equal(found.status, 401)
        } else {
          assert.equal(found.status, 200)
          assert.equal(
            found.body.data.some((e: any) => e.id === eventId),
            caller === 'owner'
          )
          if (caller !== 'owner') {
            const me = { member: member, outsider: outsider }[caller].account.id
            // Their own actions, the accesses to their data, and the changes of their own rights (the member's membership).
            assert.ok(
              found.body.data.every((e: any) => e.actor === me || e.patient === me || e.account === me),
              'only their own actions and events about them'
            )
          }
        }
        const got = await http(server.url, 'GET', `/audit-events/${eventId}`, { token: tokenOf(caller) })
        assert.equal(got.status, expectedGet[caller], JSON.stringify(got.body))
      })

      it('REST create, patch, update and remove are 405', async () => {
        const token = tokenOf(caller)
        assert.equal(
          (await http(server.url, 'POST', '/audit-events', { token, body: { action: 'read' } })).status,
          405
        )
        assert.equal(
          (await http(server.url, 'PATCH', `/audit-events/${eventId}`, { token, body: { actor: null } }))
            .status,
          405
        )
        assert.equal(
          (await http(server.url, 'PUT', `/audit-events/${eventId}`, { token, body: { actor: null } }))
            .status,
          405
        )
        assert.equal((await http(server.url, 'DELETE', `/audit-events/${eventId}`, { token })).status, 405)
      })

      it('Socket.IO find and get', async () => {
        const socket = sockets[caller]!.socket
        const found = await rawEmit(socket, 'find', 'audit-events', [{ $limit: 100 }])
        if (caller === 'anonymous') {
          assert.equal(found.error?.code, 401, JSON.stringify(found))
        } else {
          assert.ok(found.result, JSON.stringify(found))
          assert.equal(
            found.result.data.some((e: any) => e.id === eventId),
            caller === 'owner'
          )
        }
        const got = await rawEmit(socket, 'get', 'audit-events', [eventId, {}])
        if (expectedGet[caller] === 200) assert.equal(got.result?.id, eventId, JSON.stringify(got))
        else assert.equal(got.error?.code, expectedGet[caller], JSON.stringify(got))
      })

      it('Socket.IO create, patch, update and remove are 405', async () => {
        const socket = sockets[caller]!.socket
        for (const [method, args] of [
          ['create', [{ action: 'read' }, {}]],
          ['patch', [eventId, { actor: null }, {}]],
          ['update', [eventId, { actor: null }, {}]],
          ['remove', [eventId, {}]]
        ] as const) {
          const answer = await rawEmit(socket, method, 'audit-events', [...args])
          assert.equal(answer.error?.code, 405, `${method}: ${JSON.stringify(answer)}`)
        }
      })
    })
  }

  describe('afterwards', () => {
    it('the event is unchanged after every refused write', async () => {
      const got = await http(server.url, 'GET', `/audit-events/${eventId}`, { token: owner.token })
      assert.equal(got.status, 200)
      assert.equal(got.body.actor, owner.account.id)
    })

    it('realtime: no connection receives events of audit documents', async () => {
      const received: unknown[] = []
      for (const caller of callers)
        sockets[caller]!.client.service('audit-events').on('created', (data: unknown) => received.push(data))
      await http(server.url, 'GET', `/medical-records?$limit=1`, { token: owner.token })
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.deepEqual(received, [])
    })
  })
})
