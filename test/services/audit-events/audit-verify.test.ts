// Tamper evidence beyond edits, client-level: verify reports events deleted from the store (a data-file line on the
// embedded engine, a document on MongoDB) as missing and answers the chain's head; anchors hand the head to
// `audit.anchor` webhooks (application admins' own only), so a truncated tail is detectable against what a witness
// kept; retention's removals are no gap (below the floor it records); the audit settings in force are recorded when
// they change between starts.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { MongoClient } from 'mongodb'
import {
  http,
  restClient,
  signUp,
  startServer,
  tempDir,
  testMongoUrl,
  waitUntil,
  type TestServer
} from '../../helpers/app'
import { startWebhookReceiver, type TestWebhookReceiver } from '../../helpers/webhook-receiver'
import type { ConfigurationOverrides } from '../../../src/configuration'

const adminEmail = 'verify-admin@example.test'
const adminPassword = 'Admin password 1'

const adminToken = async (server: TestServer) => {
  const login = await http(server.url, 'POST', '/authentication', {
    body: { email: adminEmail, password: adminPassword }
  })
  assert.equal(login.status, 201, JSON.stringify(login.body))
  return login.body.accessToken as string
}

const verify = async (server: TestServer, token: string, query = '') => {
  const res = await http(server.url, 'GET', `/audit-events/verify${query}`, { token })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body
}

const allEvents = async (server: TestServer, token: string) => {
  const res = await http(server.url, 'GET', '/audit-events?$limit=100&$sort[seq]=1', { token })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.data as any[]
}

/** Deletes stored audit events straight from the store (the server stopped): data-file lines or MongoDB documents. */
const deleteFromStore = async (dataDir: string, mongodb: string, ids: string[]) => {
  if (mongodb) {
    const client = await MongoClient.connect(mongodb)
    try {
      const deleted = await client
        .db()
        .collection('audit-events')
        .deleteMany({ id: { $in: ids } })
      assert.equal(deleted.deletedCount, ids.length, 'the events are in the database')
    } finally {
      await client.close()
    }
    return
  }
  const file = path.join(dataDir, 'audit-events.db')
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  const kept = lines.filter((line) => !ids.some((id) => line.includes(`"id":"${id}"`)))
  assert.equal(lines.length - kept.length, ids.length, 'the events are in the data file')
  fs.writeFileSync(file, kept.join('\n'))
}

describe('audit trail: deletion, truncation, anchors and retention', function () {
  this.timeout(90000)
  let dataDir: string
  let mongodb: string
  let server: TestServer | undefined
  const start = async (overrides: ConfigurationOverrides = {}) => {
    server = await startServer({
      dataDir,
      mongodb,
      admin: { email: adminEmail, password: adminPassword, promoteExisting: false },
      ...overrides
    })
    return server
  }

  beforeEach(() => {
    dataDir = tempDir()
    mongodb = testMongoUrl()
    server = undefined
  })
  afterEach(async () => {
    await server?.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('reports events deleted from the store (the first one and one in the middle) as missing, and answers the head', async () => {
    let app = await start()
    const token = await adminToken(app)
    const user = await signUp(app.url)
    const record = await http(app.url, 'POST', '/medical-records', {
      token: user.token,
      body: { type: 'allergy', patient: user.account.id, name: 'Dust' }
    })
    assert.equal(record.status, 200)
    for (let i = 0; i < 3; i++)
      await http(app.url, 'GET', `/medical-records/${record.body.id}`, { token: user.token })
    const before = await verify(app, token)
    assert.equal(before.intact, true, JSON.stringify(before))
    const stored = await allEvents(app, token)
    const last = stored[stored.length - 1]
    assert.deepEqual(before.head, { seq: last.seq, hash: last.hash, at: last.at })
    assert.equal(before.missing, undefined)
    assert.equal(before.floor, 1)
    await app.close({ keep: true })

    const middle = stored[Math.floor(stored.length / 2)]
    assert.equal(stored[0].seq, 1)
    await deleteFromStore(dataDir, mongodb, [stored[0].id, middle.id])

    app = await start()
    const after = await verify(app, token)
    assert.equal(after.intact, false)
    assert.deepEqual(after.missing, [1, middle.seq])
    assert.equal(after.missingCount, 2)
    assert.equal(after.brokenAt, undefined, 'nothing was edited: what is left still checks')
    assert.ok(
      after.head.seq >= last.seq && /^[0-9a-f]{64}$/.test(after.head.hash),
      JSON.stringify(after.head)
    )
  })

  it('delivers the head to an admin’s audit.anchor webhook; a truncated tail is then detectable against it', async () => {
    const receiver: TestWebhookReceiver = await startWebhookReceiver()
    const bystander: TestWebhookReceiver = await startWebhookReceiver()
    try {
      const settings = {
        audit: { anchorIntervalMs: 200 },
        webhooks: { allowPrivate: true, pollIntervalMs: 50 }
      } as ConfigurationOverrides
      let app = await start(settings)
      const token = await adminToken(app)
      const [adminAccount] = (await http(app.url, 'GET', `/accounts?email=${adminEmail}`, { token })).body
        .data
      assert.ok(adminAccount)
      // Only application admins, on their own account's webhook; `*` does not include it.
      const outsider = await signUp(app.url, { organization: { name: 'Anchor clinic', type: 'facility' } })
      const refused = await restClient(app.url, outsider.token).post('/webhook-events', {
        account: outsider.account.id,
        url: receiver.url,
        events: 'audit.anchor'
      })
      assert.equal(refused.status, 403, JSON.stringify(refused.body))
      const refusedOrg = await restClient(app.url, outsider.token).post('/webhook-events', {
        organization: outsider.organization.id,
        url: receiver.url,
        events: 'audit.anchor'
      })
      assert.equal(refusedOrg.status, 403, JSON.stringify(refusedOrg.body))
      const everything = await restClient(app.url, token).post('/webhook-events', {
        account: adminAccount.id,
        url: bystander.url,
        events: '*'
      })
      assert.equal(everything.status, 201, JSON.stringify(everything.body))
      const registered = await restClient(app.url, token).post('/webhook-events', {
        account: adminAccount.id,
        url: receiver.url,
        events: 'audit.anchor'
      })
      assert.equal(registered.status, 201, JSON.stringify(registered.body))

      // Something to anchor after the registration.
      await signUp(app.url)
      await receiver.waitForCount(1, 10000)
      const anchor = receiver.received[0]
      assert.equal(anchor.body.event, 'audit.anchor')
      assert.ok(receiver.received.every((delivery) => delivery.body.event === 'audit.anchor'))
      assert.ok(
        bystander.received.every((delivery) => delivery.body.event !== 'audit.anchor'),
        'a `*` webhook gets no anchor'
      )
      const witnessed = anchor.body.payload
      assert.ok(
        Number.isInteger(witnessed.seq) && /^[0-9a-f]{64}$/.test(witnessed.hash),
        JSON.stringify(witnessed)
      )
      // The anchor is in the log too, and the witnessed head checks.
      const [logged] = (await http(app.url, 'GET', `/audit-events?seq=${witnessed.seq}`, { token })).body.data
      assert.deepEqual([logged.action, logged.hash, logged.actor], ['anchor', witnessed.hash, null])
      const present = await verify(app, token, `?seq=${witnessed.seq}&hash=${witnessed.hash}`)
      assert.equal(present.intact, true, JSON.stringify(present))
      assert.deepEqual(present.witness, { seq: witnessed.seq, hash: witnessed.hash, status: 'present' })
      await app.close({ keep: true })

      // The tail is cut off, the anchor with it: what is left is a sound chain, but not the witnessed one.
      const client = mongodb ? await MongoClient.connect(mongodb) : undefined
      let tail: string[]
      if (client) {
        tail = (
          await client
            .db()
            .collection('audit-events')
            .find({ seq: { $gte: witnessed.seq - 1 } })
            .toArray()
        ).map((doc) => doc.id)
        await client.close()
      } else {
        tail = fs
          .readFileSync(path.join(dataDir, 'audit-events.db'), 'utf8')
          .split('\n')
          .filter((line) => line.startsWith('{') && !line.includes('$$'))
          .map((line) => JSON.parse(line))
          .filter((doc) => doc.seq >= witnessed.seq - 1)
          .map((doc) => doc.id)
      }
      await deleteFromStore(dataDir, mongodb, tail)

      app = await start({ ...settings, audit: { anchorIntervalMs: 3600000 } } as ConfigurationOverrides)
      const plain = await verify(app, token)
      assert.equal(plain.brokenAt, undefined, 'without a witness the cut is invisible to the chain itself')
      assert.ok(plain.head.seq < witnessed.seq || plain.head.hash !== witnessed.hash)
      const checked = await verify(app, token, `?seq=${witnessed.seq}&hash=${witnessed.hash}`)
      assert.equal(checked.intact, false, JSON.stringify(checked))
      // Missing, or (when the restart appended past the cut) a different event in its place.
      assert.ok(['missing', 'altered'].includes(checked.witness.status), JSON.stringify(checked.witness))
      if (checked.witness.status === 'missing')
        assert.ok(checked.missing.includes(witnessed.seq), JSON.stringify(checked))
    } finally {
      await receiver.close()
      await bystander.close()
    }
  })

  it('refuses a half witness or a malformed one (400 naming the field)', async () => {
    const app = await start()
    const token = await adminToken(app)
    const half = await http(app.url, 'GET', '/audit-events/verify?seq=3', { token })
    assert.equal(half.status, 400)
    assert.equal(half.body.errors[0].field, 'hash')
    const bad = await http(app.url, 'GET', `/audit-events/verify?seq=0&hash=${'a'.repeat(64)}`, { token })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.errors[0].field, 'seq')
    const notHex = await http(app.url, 'GET', `/audit-events/verify?seq=1&hash=xyz`, { token })
    assert.equal(notHex.status, 400)
    assert.equal(notHex.body.errors[0].field, 'hash')
  })

  it('does not report what retention removed as missing: it records the floor first', async () => {
    // Events older than about 0.9 s are removed, every 100 ms.
    const app = await start({
      audit: { retentionDays: 0.00001, retentionIntervalMs: 100 }
    } as ConfigurationOverrides)
    const token = await adminToken(app)
    const user = await signUp(app.url)
    // Until the first events are gone.
    await waitUntil(
      async () => {
        await http(app.url, 'POST', '/authentication', {
          body: { email: user.email, password: user.password }
        })
        return (await http(app.url, 'GET', '/audit-events?seq=1', { token })).body.data.length === 0
      },
      20000,
      'a retention pass'
    )
    const result = await verify(app, token)
    assert.equal(result.missing, undefined, JSON.stringify(result))
    assert.equal(result.intact, true, JSON.stringify(result))
    assert.ok(result.floor > 1)
    const [retention] = (await http(app.url, 'GET', '/audit-events?action=retention', { token })).body.data
    assert.ok(retention, 'the retention pass is recorded')
    assert.deepEqual([retention.actor, retention.after.retentionDays], [null, 0.00001])
    assert.ok(retention.after.floor > 1)
  })

  it('records the audit settings in force at start when they differ from those recorded last (admins only)', async () => {
    let app = await start()
    const token = await adminToken(app)
    const configs = async () => {
      let list: any[] = []
      await waitUntil(
        async () => {
          list = (await http(app.url, 'GET', '/audit-events?action=audit-config', { token })).body.data
          return list.length > 0
        },
        10000,
        'the configuration record'
      )
      return list
    }
    const first = await configs()
    assert.equal(first.length, 1)
    assert.deepEqual(
      [first[0].before, first[0].after],
      [undefined, { enabled: true, retentionDays: 2190, anchorIntervalMs: 3600000 }]
    )
    const user = await signUp(app.url)
    assert.deepEqual(
      (await http(app.url, 'GET', '/audit-events?action=audit-config', { token: user.token })).body.data,
      []
    )
    await app.close({ keep: true })

    app = await start()
    // The same settings: the start's own record is skipped (the record runs in the background: wait for a later event).
    await signUp(app.url)
    await waitUntil(async () => (await verify(app, token)).head !== null, 5000, 'the log')
    app = await restart(app, { audit: { retentionDays: 3650 } } as ConfigurationOverrides)
    let list: any[] = []
    await waitUntil(
      async () => {
        list = (await http(app.url, 'GET', '/audit-events?action=audit-config', { token })).body.data
        return list.length > 1
      },
      10000,
      'the changed configuration record'
    )
    assert.equal(list.length, 2, 'no record for the start with unchanged settings')
    assert.deepEqual(
      [list[0].before, list[0].after],
      [
        { enabled: true, retentionDays: 2190, anchorIntervalMs: 3600000 },
        { enabled: true, retentionDays: 3650, anchorIntervalMs: 3600000 }
      ]
    )
  })

  const restart = async (app: TestServer, overrides: ConfigurationOverrides) => {
    await app.close({ keep: true })
    return start(overrides)
  }
})
