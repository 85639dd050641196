// Realtime audit events: only application admins who ask for them (Socket.IO `subscribe` on /audit-events)
// receive them; everyone else — other admins, superadmins, members, patients, strangers, anonymous sockets —
// receives nothing, and only admins may ask.
import assert from 'node:assert/strict'
import {
  http,
  restClient,
  signUp,
  sleep,
  socketClient,
  startServer,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../../helpers/app'

const adminEmail = 'audit-watch-admin@example.test'
const adminPassword = 'Admin password 1'

type Socket = ReturnType<typeof socketClient>

describe('audit trail: realtime events for admins who ask', function () {
  this.timeout(60000)
  let server: TestServer
  let adminToken: string
  let adminId: string
  let owner: SignedUp // superadmin of the clinic
  let doctor: SignedUp
  let patient: SignedUp
  let stranger: SignedUp
  let record: { id: string }
  const sockets: Socket[] = []

  const connect = async (token?: string) => {
    const socket = socketClient(server.url)
    sockets.push(socket)
    if (token) await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
    return socket
  }
  const collect = (socket: Socket) => {
    const received: any[] = [] // `as any`-free: events arrive as plain JSON
    socket.client.service('audit-events').on('created', (event: unknown) => received.push(event))
    return received
  }
  const doctorReads = () =>
    http(server.url, 'GET', `/medical-records/${record.id}`, {
      token: doctor.token,
      headers: { 'x-request-id': `watch-${Date.now()}` }
    })

  before(async () => {
    server = await startServer({ admin: { email: adminEmail, password: adminPassword } })
    const login = await http(server.url, 'POST', '/authentication', {
      body: { email: adminEmail, password: adminPassword }
    })
    adminToken = login.body.accessToken
    adminId = login.body.account.id
    ;[owner, doctor, patient, stranger] = await Promise.all([
      signUp(server.url, { organization: { name: 'Watch clinic', type: 'facility' } }),
      signUp(server.url),
      signUp(server.url),
      signUp(server.url)
    ])
    assert.equal(
      (
        await restClient(server.url, owner.token).post('/organization-members', {
          organization: owner.organization.id,
          uid: doctor.account.id,
          roles: ['doctor']
        })
      ).status,
      201
    )
    const created = await http(server.url, 'POST', '/medical-records', {
      token: owner.token,
      body: {
        type: 'allergy',
        facility: owner.organization.id,
        patient: patient.account.id,
        name: 'Penicillin secret',
        permissions: [{ organization: owner.organization.id, roles: ['doctor'] }]
      }
    })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    record = created.body
  })
  after(async () => {
    for (const socket of sockets) socket.close()
    await server?.close()
  })

  it('sends an admin who subscribed each new audit event (no contents); an admin who did not ask gets nothing', async () => {
    const watching = await connect(adminToken)
    const idle = await connect(adminToken)
    const received = collect(watching)
    const unasked = collect(idle)
    assert.deepEqual(await watching.client.service('audit-events').subscribe({}), { subscribed: true })
    const read = await doctorReads()
    assert.equal(read.status, 200)
    await waitUntil(() => received.some((event) => event.actor === doctor.account.id), 5000, 'the read event')
    const event = received.find((e) => e.actor === doctor.account.id)
    assert.equal(event.action, 'read')
    assert.equal(event.service, 'medical-records')
    assert.deepEqual(event.ids, [record.id])
    assert.equal(event.patient, patient.account.id)
    assert.equal(event.facility, owner.organization.id)
    assert.equal(event.outcome, 'allowed')
    assert.equal(typeof event.hash, 'string')
    assert.ok(!JSON.stringify(event).includes('Penicillin'), 'no record contents')
    // The same event as GET /audit-events/:id answers it.
    const stored = await http(server.url, 'GET', `/audit-events/${event.id}`, { token: adminToken })
    assert.deepEqual(stored.body, event)
    assert.deepEqual(unasked, [])
  })

  it('refuses subscribe to everyone but application admins (403; 401 without a token) and sends them nothing', async () => {
    const callers = {
      superadmin: owner.token,
      doctor: doctor.token,
      patient: patient.token,
      stranger: stranger.token
    }
    const received: Record<string, any[]> = {}
    for (const [name, token] of Object.entries(callers)) {
      const socket = await connect(token)
      received[name] = collect(socket)
      await assert.rejects(
        socket.client.service('audit-events').subscribe({}),
        (error: any) => error.code === 403 && /admins/.test(error.message),
        name
      )
    }
    const anonymous = await connect()
    received.anonymous = collect(anonymous)
    await assert.rejects(
      anonymous.client.service('audit-events').subscribe({}),
      (error: any) => error.code === 401
    )
    // A watching admin proves events are flowing meanwhile.
    const admin = await connect(adminToken)
    const seen = collect(admin)
    await admin.client.service('audit-events').subscribe({})
    await doctorReads()
    await waitUntil(() => seen.length > 0, 5000, 'the admin to see the read')
    await sleep(100)
    for (const [name, events] of Object.entries(received))
      assert.deepEqual(events, [], `${name} received audit events`)
  })

  it('answers subscribe over REST with 400 (it needs a Socket.IO connection), 401 without a token', async () => {
    const subscribe = (token?: string) =>
      http(server.url, 'POST', '/audit-events', {
        token,
        headers: { 'x-service-method': 'subscribe' },
        body: {}
      })
    const asAdmin = await subscribe(adminToken)
    assert.equal(asAdmin.status, 400, JSON.stringify(asAdmin.body))
    assert.match(asAdmin.body.message, /Socket\.IO/)
    assert.equal((await subscribe(owner.token)).status, 400)
    assert.equal((await subscribe()).status, 401)
    // Without the header a POST stays what it was: 405.
    assert.equal(
      (await http(server.url, 'POST', '/audit-events', { token: adminToken, body: {} })).status,
      405
    )
  })

  it('stops after unsubscribe and after logout; a membership change keeps the subscription', async () => {
    const admin = await connect(adminToken)
    const received = collect(admin)
    await admin.client.service('audit-events').subscribe({})
    await doctorReads()
    await waitUntil(() => received.length > 0, 5000, 'a first event')

    // A membership change of the admin re-joins its channels: still watching.
    const join = await restClient(server.url, owner.token).post('/organization-members', {
      organization: owner.organization.id,
      uid: adminId,
      roles: ['nurse']
    })
    assert.equal(join.status, 201, JSON.stringify(join.body))
    await sleep(200)
    received.length = 0
    await doctorReads()
    await waitUntil(() => received.length > 0, 5000, 'events after the membership change')

    assert.deepEqual(await admin.client.service('audit-events').unsubscribe({}), { subscribed: false })
    received.length = 0
    await doctorReads()
    await sleep(300)
    assert.deepEqual(received, [])

    // Logout forgets the request: logging in again on the same socket does not resume it.
    await admin.client.service('audit-events').subscribe({})
    await admin.client.logout()
    // (a new token: logout ended the old one)
    const again = await http(server.url, 'POST', '/authentication', {
      body: { email: adminEmail, password: adminPassword }
    })
    await admin.client.authenticate({ strategy: 'jwt', accessToken: again.body.accessToken })
    received.length = 0
    await doctorReads()
    await sleep(300)
    assert.deepEqual(received, [])
  })

  it('leaves the channel on disconnect, and emits nothing while no admin watches', async () => {
    for (const socket of sockets.splice(0)) socket.close()
    await waitUntil(
      () => server.app.channel('audit-watchers').connections.length === 0,
      5000,
      'watchers to leave'
    )
    let emitted = 0
    const count = () => emitted++
    server.app.service('audit-events').on('created', count)
    try {
      await doctorReads()
      await sleep(100)
      assert.equal(emitted, 0)
    } finally {
      server.app.service('audit-events').removeListener('created', count)
    }
  })
})
