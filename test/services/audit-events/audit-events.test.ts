// The audit trail, client-level: reads, writes and denied accesses of patient data and authentication events
// become audit events with the right fields (and no contents); who sees which events; filters and order;
// tamper evidence (verify after an edit of the data file); durability across kill -9; read-only service.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { MongoClient } from 'mongodb'
import {
  http,
  restClient,
  signUp,
  socketClient,
  startServer,
  tempDir,
  testMongoUrl,
  uniqueEmail,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../../helpers/app'
import { startChild } from '../../helpers/child'

const adminEmail = 'audit-admin@example.test'
const adminPassword = 'Admin password 1'

const list = async (server: TestServer, token: string, query = '') => {
  const res = await http(server.url, 'GET', `/audit-events${query}`, { token })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.data as any[] // `as any`: JSON answers are untyped
}

describe('audit trail (/audit-events)', function () {
  this.timeout(60000)
  let server: TestServer
  let admin: SignedUp
  let owner: SignedUp // superadmin of the clinic
  let doctor: SignedUp // member of the clinic with the role 'doctor'
  let patient: SignedUp
  let stranger: SignedUp
  let record: any

  before(async () => {
    server = await startServer({ admin: { email: adminEmail, password: adminPassword } })
    const login = await http(server.url, 'POST', '/authentication', {
      body: { email: adminEmail, password: adminPassword }
    })
    admin = {
      account: login.body.account,
      token: login.body.accessToken,
      email: adminEmail,
      password: adminPassword
    }
    ;[owner, doctor, patient, stranger] = await Promise.all([
      signUp(server.url, { organization: { name: 'Audit clinic', type: 'facility' } }),
      signUp(server.url),
      signUp(server.url),
      signUp(server.url)
    ])
    const member = await restClient(server.url, owner.token).post('/organization-members', {
      organization: owner.organization.id,
      uid: doctor.account.id,
      roles: ['doctor']
    })
    assert.equal(member.status, 201, JSON.stringify(member.body))
    const created = await http(server.url, 'POST', '/medical-records', {
      token: owner.token,
      headers: { 'user-agent': 'audit-test/1.0', 'x-request-id': 'req-create-1' },
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
    await server?.close()
  })

  it('records a write with who, what, where from and which patient, without the contents', async () => {
    const [event] = await list(
      server,
      owner.token,
      `?service=medical-records&action=create&actor=${owner.account.id}`
    )
    assert.ok(event, 'the create is recorded')
    assert.deepEqual(event.ids, [record.id])
    assert.equal(event.actor, owner.account.id)
    assert.equal(event.patient, patient.account.id)
    assert.equal(event.facility, owner.organization.id)
    assert.equal(event.outcome, 'allowed')
    assert.equal(event.status, 200)
    assert.equal(event.ip, '127.0.0.1')
    assert.equal(event.userAgent, 'audit-test/1.0')
    assert.equal(event.requestId, 'req-create-1')
    assert.equal(typeof event.at, 'number')
    assert.match(event.hash, /^[0-9a-f]{64}$/)
    assert.match(event.prevHash, /^[0-9a-f]{64}$/)
    assert.ok(!JSON.stringify(event).includes('Penicillin'), 'no record contents in the event')
  })

  it('records a read by a doctor, which the patient sees; find records the returned ids', async () => {
    const read = await http(server.url, 'GET', `/medical-records/${record.id}`, { token: doctor.token })
    assert.equal(read.status, 200)
    assert.ok(read.headers.get('x-request-id'))
    const found = await http(server.url, 'GET', `/medical-records?patient=${patient.account.id}`, {
      token: doctor.token
    })
    assert.equal(found.status, 200)
    assert.equal(found.body.total, 1)

    const seenByPatient = await list(server, patient.token, `?actor=${doctor.account.id}`)
    assert.equal(seenByPatient.length, 2, JSON.stringify(seenByPatient))
    // Newest first: the find, then the get.
    assert.ok(seenByPatient[0].at >= seenByPatient[1].at)
    for (const event of seenByPatient) {
      assert.equal(event.action, 'read')
      assert.equal(event.service, 'medical-records')
      assert.deepEqual(event.ids, [record.id])
      assert.equal(event.patient, patient.account.id)
      assert.equal(event.outcome, 'allowed')
      assert.equal(event.status, 200)
    }
    assert.equal(seenByPatient[1].requestId, read.headers.get('x-request-id'))
    // The doctor sees their own actions too.
    const own = await list(server, doctor.token, '?action=read')
    assert.ok(own.length >= 2)
    assert.ok(own.every((event) => event.actor === doctor.account.id))
  })

  it('records a denied access (404 for an unreadable record, 403 for a readable one the caller may not change)', async () => {
    const unreadable = await http(server.url, 'GET', `/medical-records/${record.id}`, {
      token: stranger.token
    })
    assert.equal(unreadable.status, 404)
    const forbidden = await http(server.url, 'PATCH', `/medical-records/${record.id}`, {
      token: doctor.token,
      body: { name: 'changed' }
    })
    assert.equal(forbidden.status, 403)

    const [strangerEvent] = await list(server, stranger.token, '?service=medical-records')
    assert.equal(strangerEvent.outcome, 'denied')
    assert.equal(strangerEvent.status, 404)
    assert.equal(strangerEvent.action, 'read')
    assert.deepEqual(strangerEvent.ids, [record.id])
    assert.equal(strangerEvent.actor, stranger.account.id)
    assert.equal(
      strangerEvent.patient,
      undefined,
      'the patient of a record the caller cannot read is not revealed to them'
    )

    const [denied] = await list(server, doctor.token, '?action=patch')
    assert.equal(denied.outcome, 'denied')
    assert.equal(denied.status, 403)
    assert.deepEqual(denied.ids, [record.id])
    assert.ok(!JSON.stringify(denied).includes('changed'))
  })

  it('shows a stranger nothing of others, a facility superadmin the events of their facility, an admin everything', async () => {
    const strangers = await list(server, stranger.token, '?$limit=100')
    assert.ok(strangers.length > 0)
    assert.ok(
      strangers.every((event) => event.actor === stranger.account.id || event.patient === stranger.account.id)
    )
    const doctorsEvent = (await list(server, doctor.token, '?outcome=allowed&$limit=1'))[0]
    const get = await http(server.url, 'GET', `/audit-events/${doctorsEvent.id}`, { token: stranger.token })
    assert.equal(get.status, 404)
    const ownerGet = await http(server.url, 'GET', `/audit-events/${doctorsEvent.id}`, { token: owner.token })
    assert.equal(ownerGet.status, 200, 'the superadmin of the facility sees events of their facility')
    const facilityEvents = await list(server, owner.token, '?$limit=100')
    assert.ok(facilityEvents.some((event) => event.actor === doctor.account.id))
    const all = await list(server, admin.token, '?$limit=100')
    assert.ok(
      all.some((event) => event.actor === stranger.account.id) &&
        all.some((event) => event.actor === doctor.account.id)
    )
  })

  it('records login success and failure (failure: actor null, subject = the email tried)', async () => {
    const email = uniqueEmail('login')
    const account = await signUp(server.url, { email })
    const wrong = await http(server.url, 'POST', '/authentication', {
      body: { email: email.toUpperCase(), password: 'not the password' }
    })
    assert.equal(wrong.status, 401)
    const all = await list(server, admin.token, '?service=authentication&$limit=100')
    const success = all.find((event) => event.action === 'login' && event.actor === account.account.id)
    assert.ok(success, 'the login is recorded')
    assert.equal(success.outcome, 'allowed')
    const failure = all.find((event) => event.action === 'login-failed' && event.subject === email)
    assert.ok(failure, JSON.stringify(all.slice(0, 3)))
    assert.equal(failure.actor, null)
    assert.equal(failure.outcome, 'denied')
    assert.equal(failure.status, 401)
    assert.ok(!JSON.stringify(all).includes('not the password'))
    // The account sees its own login.
    const own = await list(server, account.token, '?action=login')
    assert.equal(own.length, 1)
  })

  it('records logout-everywhere and Socket.IO reads', async () => {
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'jwt', accessToken: doctor.token })
      await socket.client.service('medical-records').get(record.id)
    } finally {
      socket.close()
    }
    const events = await list(server, patient.token, `?actor=${doctor.account.id}&$limit=1`)
    assert.equal(events[0].action, 'read')
    assert.equal(events[0].ip, '127.0.0.1')
    assert.ok(events[0].requestId)
    const user = await signUp(server.url)
    const out = await http(server.url, 'POST', '/authentication', {
      token: user.token,
      body: { action: 'logout-everywhere' }
    })
    assert.equal(out.status, 201, JSON.stringify(out.body))
    const [logout] = await list(server, admin.token, `?action=logout-everywhere&actor=${user.account.id}`)
    assert.ok(logout)
    assert.equal(logout.outcome, 'allowed')
  })

  it('records MFA actions (allowed and denied) with the caller of the token, never the secret, code or password', async () => {
    const user = await signUp(server.url)
    const wrong = await http(server.url, 'POST', '/authentication', {
      token: user.token,
      body: { action: 'setupMFA', password: 'wrong password here' }
    })
    assert.equal(wrong.status, 401, JSON.stringify(wrong.body))
    const setup = await http(server.url, 'POST', '/authentication', {
      token: user.token,
      body: { action: 'setupMFA', password: user.password }
    })
    assert.equal(setup.status, 201, JSON.stringify(setup.body))
    const events = await list(server, user.token, '?action=mfa')
    assert.equal(events.length, 2, JSON.stringify(events))
    assert.deepEqual(
      events.map((e) => [e.outcome, e.status, e.actor]),
      [
        ['allowed', 201, user.account.id],
        ['denied', 401, user.account.id]
      ]
    )
    const text = JSON.stringify(events)
    for (const secret of [setup.body.secret, setup.body.code, user.password, 'wrong password here'])
      assert.ok(!text.includes(secret))
    // A wrong action code is recorded too.
    const code = await http(server.url, 'POST', '/authentication', {
      token: user.token,
      body: { action: 'applyActionCode', code: 'NOPE-0000' }
    })
    assert.ok(code.status >= 400 && code.status < 500, JSON.stringify(code.body))
    const [applied] = await list(server, user.token, '?action=action-code')
    assert.equal(applied.outcome, 'denied')
    assert.equal(applied.status, code.status)
    assert.ok(!JSON.stringify(applied).includes('NOPE-0000'))
  })

  it('answers bodies naming Object.prototype members as actions like any unknown action (400, no 5xx)', async () => {
    for (const action of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const res = await http(server.url, 'POST', '/authentication', { body: { action } })
      assert.ok(res.status >= 400 && res.status < 500, `${action}: ${res.status} ${JSON.stringify(res.body)}`)
    }
  })

  it('filters by time and sorts newest first by default', async () => {
    const all = await list(server, admin.token, '?$limit=100')
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].at >= all[i].at)
    const middle = all[Math.floor(all.length / 2)].at
    const later = await list(server, admin.token, `?at[$gte]=${middle}&$limit=100`)
    const earlier = await list(server, admin.token, `?at[$lt]=${middle}&$limit=100`)
    assert.ok(later.every((event) => event.at >= middle) && earlier.every((event) => event.at < middle))
    assert.equal(later.length + earlier.length, all.length)
  })

  it('is read-only: create, patch, update and remove are 405 for everyone', async () => {
    const [event] = await list(server, admin.token, '?$limit=1')
    const api = restClient(server.url, admin.token)
    assert.equal((await api.post('/audit-events', { action: 'read' })).status, 405)
    assert.equal((await api.patch(`/audit-events/${event.id}`, { actor: null })).status, 405)
    assert.equal((await api.put(`/audit-events/${event.id}`, { actor: null })).status, 405)
    assert.equal((await api.delete(`/audit-events/${event.id}`)).status, 405)
  })

  it('verify: admins only (others 403, no token 401); the untouched chain is intact', async () => {
    assert.equal((await http(server.url, 'GET', '/audit-events/verify', { token: owner.token })).status, 403)
    assert.equal((await http(server.url, 'GET', '/audit-events/verify')).status, 401)
    const res = await http(server.url, 'GET', '/audit-events/verify', { token: admin.token })
    assert.equal(res.status, 200)
    assert.equal(res.body.intact, true)
    assert.ok(res.body.checked > 5)
  })

  it('audit-events cannot be subscribed to by webhooks', async () => {
    const res = await http(server.url, 'POST', '/webhook-events', {
      token: owner.token,
      body: { organization: owner.organization.id, url: 'http://127.0.0.1:9/hook', events: 'audit-events' }
    })
    assert.equal(res.status, 400, JSON.stringify(res.body))
  })
})

describe('audit trail: tamper evidence and durability', function () {
  this.timeout(90000)

  it('verify finds an event edited in the store (data file or MongoDB document) while the server was stopped', async () => {
    const dataDir = tempDir()
    const mongodb = testMongoUrl()
    try {
      let server = await startServer({
        dataDir,
        mongodb,
        admin: { email: adminEmail, password: adminPassword }
      })
      const user = await signUp(server.url)
      const rec = await http(server.url, 'POST', '/medical-records', {
        token: user.token,
        body: { type: 'allergy', patient: user.account.id, name: 'Dust' }
      })
      assert.equal(rec.status, 200)
      await http(server.url, 'GET', `/medical-records/${rec.body.id}`, { token: user.token })
      const [target] = await list(server, user.token, '?action=read')
      await server.close({ keep: true })

      if (mongodb) {
        const client = await MongoClient.connect(mongodb)
        try {
          const edited = await client
            .db()
            .collection('audit-events')
            .updateOne({ id: target.id }, { $set: { actor: 'someone-else' } })
          assert.equal(edited.modifiedCount, 1, 'the event is in the database')
        } finally {
          await client.close()
        }
      } else {
        const file = path.join(dataDir, 'audit-events.db')
        const lines = fs.readFileSync(file, 'utf8').split('\n')
        const index = lines.findIndex((line) => line.includes(`"id":"${target.id}"`))
        assert.ok(index >= 0, 'the event is in the data file')
        const doc = JSON.parse(lines[index])
        doc.actor = 'someone-else'
        lines[index] = JSON.stringify(doc)
        fs.writeFileSync(file, lines.join('\n'))
      }

      server = await startServer({ dataDir, mongodb, admin: { email: adminEmail, password: adminPassword } })
      try {
        const login = await http(server.url, 'POST', '/authentication', {
          body: { email: adminEmail, password: adminPassword }
        })
        const res = await http(server.url, 'GET', '/audit-events/verify', { token: login.body.accessToken })
        assert.equal(res.status, 200)
        assert.equal(res.body.intact, false)
        assert.equal(res.body.brokenAt, target.id)
        assert.equal(typeof res.body.checked, 'number')
      } finally {
        // drops the MongoDB database; the data dir is removed below
        await server.close()
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('keeps the event of a read answered just before a kill -9 (child-process server)', async () => {
    const dataDir = tempDir()
    try {
      const env = { DATA_DIR: dataDir }
      const first = await startChild(env)
      let user: SignedUp
      let recordId: string
      let requestId: string | null
      try {
        user = await signUp(first.url)
        const rec = await http(first.url, 'POST', '/medical-records', {
          token: user.token,
          body: { type: 'allergy', patient: user.account.id, name: 'Pollen' }
        })
        recordId = rec.body.id
        const read = await http(first.url, 'GET', `/medical-records/${recordId}`, { token: user.token })
        assert.equal(read.status, 200)
        requestId = read.headers.get('x-request-id')
      } finally {
        await first.kill('SIGKILL')
      }
      const second = await startChild(env)
      try {
        let events: any[] = []
        await waitUntil(
          async () => {
            const res = await http(second.url, 'GET', '/audit-events?action=read&service=medical-records', {
              token: user.token
            })
            events = res.body?.data ?? []
            return res.status === 200
          },
          10000,
          'the restarted server'
        )
        const read = events.find((event) => event.requestId === requestId)
        assert.ok(read, `the read survived kill -9: ${JSON.stringify(events)}`)
        assert.deepEqual(read.ids, [recordId])
      } finally {
        await second.kill('SIGKILL')
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
