// The cached access context (memberships per account, stamped with the account's `accessVersion`): a change of
// rights is seen by the caller's very next call, over REST and Socket.IO — a role taken away, a role given, a
// membership removed — whether it came through the service, an internal store write, or (as another instance
// would make it) a membership write plus a version bump in the shared store. The stamp never leaves the server.
import assert from 'node:assert/strict'
import { http, signUp, socketClient, startServer, type SignedUp, type TestServer } from '../helpers/app'
import { validRecords } from '../fixtures/medical-records'

describe('access context cache: rights changes are seen by the next call', () => {
  let server: TestServer
  let owner: SignedUp
  let doctor: SignedUp
  let membershipId: string
  let recordId: string
  const sockets: { close(): void }[] = []

  before(async () => {
    server = await startServer()
    owner = await signUp(server.url, { organization: { name: 'Cache clinic', type: 'facility' } })
    doctor = await signUp(server.url)
    const added = await http(server.url, 'POST', '/organization-members', {
      token: owner.token,
      body: { organization: owner.organization.id, uid: doctor.account.id, roles: ['doctor'], privileges: [] }
    })
    assert.equal(added.status, 201, JSON.stringify(added.body))
    membershipId = added.body.id
    const record = await http(server.url, 'POST', '/medical-records', {
      token: owner.token,
      body: {
        ...validRecords.allergy,
        facility: owner.organization.id,
        patient: owner.account.id,
        permissions: [{ organization: owner.organization.id, roles: ['doctor'] }]
      }
    })
    assert.equal(record.status, 200, JSON.stringify(record.body)) // (the interface answers 200 for a created record)
    recordId = record.body.id
  })
  after(async () => {
    sockets.forEach((s) => s.close())
    await server.close()
  })

  const readOverRest = async () =>
    (await http(server.url, 'GET', `/medical-records/${recordId}`, { token: doctor.token })).status
  const readOverSocket = async () => {
    const live = socketClient(server.url)
    sockets.push(live)
    await live.client.authenticate({ strategy: 'jwt', accessToken: doctor.token })
    return live
  }
  const socketStatus = (live: Awaited<ReturnType<typeof readOverSocket>>) =>
    live.client
      .service('medical-records')
      .get(recordId)
      .then(() => 200)
      .catch((error: any) => error.code as number)
  const setRoles = async (roles: string[]) => {
    const res = await http(server.url, 'PATCH', `/organization-members/${membershipId}`, {
      token: owner.token,
      body: { roles }
    })
    assert.equal(res.status, 200, JSON.stringify(res.body))
  }

  it('a role taken away and given back through the service: the next REST and Socket.IO calls follow at once', async () => {
    const live = await readOverSocket()
    // Warm: repeated reads (served from the cache after the first).
    for (let i = 0; i < 3; i++) {
      assert.equal(await readOverRest(), 200)
      assert.equal(await socketStatus(live), 200)
    }
    await setRoles(['nurse'])
    assert.equal(await readOverRest(), 404, 'revoked on the very next REST call')
    assert.equal(await socketStatus(live), 404, 'revoked on the very next socket call of an open connection')
    await setRoles(['doctor'])
    assert.equal(await readOverRest(), 200, 'granted on the very next REST call')
    assert.equal(await socketStatus(live), 200, 'granted on the very next socket call')
  })

  it('an internal store write of a membership (no service hooks) is seen by the next call', async () => {
    // An open connection too: no service event refreshes its channels here, and its calls still follow at once.
    const live = await readOverSocket()
    assert.equal(await readOverRest(), 200)
    assert.equal(await socketStatus(live), 200)
    // (cast: the test writes through the store adapter's internal method, as cascades and jobs do)
    await (server.app.service('organization-members' as any) as any)._patch(membershipId, {
      roles: ['nurse']
    })
    assert.equal(await readOverRest(), 404)
    assert.equal(await socketStatus(live), 404, 'revoked on the next socket call, with no event in between')
    await (server.app.service('organization-members' as any) as any)._patch(membershipId, {
      roles: ['doctor']
    })
    assert.equal(await readOverRest(), 200)
    assert.equal(await socketStatus(live), 200)
  })

  it('a change made elsewhere (raw store write + version bump, as another instance on the same database does) is seen by the next call', async () => {
    assert.equal(await readOverRest(), 200)
    const app = server.app as any // (cast: raw store access by name, outside the typed services)
    const members = app.service('organization-members')
    const accounts = app.service('accounts')
    // What another instance does: writes the membership in the shared store, then bumps the account's stamp.
    if (members.options.Model.updateAsync)
      await members.options.Model.updateAsync({ id: membershipId }, { $set: { roles: ['nurse'] } })
    else await (await members.options.Model).updateOne({ id: membershipId }, { $set: { roles: ['nurse'] } })
    await accounts._patch(doctor.account.id, { $inc: { accessVersion: 1 } })
    assert.equal(await readOverRest(), 404)
    await members._patch(membershipId, { roles: ['doctor'] })
    assert.equal(await readOverRest(), 200)
  })

  it('the version stamps never leave the server', async () => {
    const me = await http(server.url, 'GET', `/accounts/${doctor.account.id}`, { token: doctor.token })
    assert.equal(me.status, 200)
    assert.equal('accessVersion' in me.body, false)
    assert.equal('sessionVersion' in me.body, false)
    const login = await http(server.url, 'POST', '/authentication', {
      body: { email: doctor.email, password: doctor.password }
    })
    assert.equal(login.status, 201)
    assert.equal('accessVersion' in login.body.account, false)
    const jwtLogin = await http(server.url, 'POST', '/authentication', {
      body: { strategy: 'jwt', accessToken: doctor.token }
    })
    assert.equal(jwtLogin.status, 201)
    assert.equal('accessVersion' in jwtLogin.body.account, false)
    assert.equal('password' in jwtLogin.body.account, false)
  })

  it('a removed membership: the next call is refused', async () => {
    const live = await readOverSocket()
    assert.equal(await socketStatus(live), 200)
    const removed = await http(server.url, 'DELETE', `/organization-members/${membershipId}`, {
      token: owner.token
    })
    assert.equal(removed.status, 200, JSON.stringify(removed.body))
    assert.equal(await readOverRest(), 404)
    assert.equal(await socketStatus(live), 404)
  })
})
