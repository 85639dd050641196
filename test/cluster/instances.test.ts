// Several instances on one MongoDB and one Redis: two app instances in this process share a database (MONGODB_URL
// when set, else the MongoDB emulator started here) and a real Redis (redis-server started here), and are driven
// over HTTP and Socket.IO as clients use them behind a load balancer.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import type { Server } from 'node:http'
import { MongoClient } from 'mongodb'
import { createClient } from 'redis'
import { createApp } from '../../src/app'
import {
  http,
  recordEvents,
  recordSessionEnd,
  restClient,
  signUp,
  socketClient,
  startServer,
  tempDir,
  testMongoUrl,
  waitUntil,
  type TestServer
} from '../helpers/app'
import { auth } from '../helpers/auth'
import { addMember, invoiceWithItems, pay, setupFacility } from '../helpers/billing'
import { startMongoEmulator, type MongoEmulator } from '../helpers/mongo-emulator'
import { startRedis, type TestRedis } from '../helpers/redis'
import { startWebhookReceiver, type TestWebhookReceiver } from '../helpers/webhook-receiver'
import { startStripeServer } from '../helpers/stripe-server'
import {
  ADMIN,
  DAY,
  LONG_SESSIONS,
  readSubscription,
  signUpWith,
  testClock,
  waitForStatus
} from '../helpers/subscriptions'
import { validRecords } from '../fixtures/medical-records'
import defaults from '../../config/default.json'
import { startServerProcess } from '../helpers/server-process'
import { recoverBillingOnce } from '../../src/billing/recovery'
import { depsSlot } from '../../src/deps'
import { withLeaseWaiting } from '../../src/cluster/lease'
import { directoryOf } from '../../src/directory/repair'
import type { ConfigurationOverrides } from '../../src/configuration'

interface Pair {
  a: TestServer
  b: TestServer
  /** An authenticated Socket.IO client on one instance, closed with the pair. */
  connect(url: string, user: { email: string; password: string }): Promise<any>
  close(): Promise<void>
}

describe('several instances on one MongoDB and one Redis', function () {
  this.timeout(60000)
  let redis: TestRedis
  let emulator: MongoEmulator | undefined

  before(async () => {
    redis = await startRedis()
    if (!process.env.MONGODB_URL) emulator = await startMongoEmulator()
  })
  after(async () => {
    await redis?.stop()
    await emulator?.stop()
  })

  /** A fresh database on the emulator (its URL's options kept). */
  const emulatorDatabase = (prefix: string) => {
    const url = new URL(emulator!.url)
    url.pathname = `/${prefix}_${crypto.randomBytes(6).toString('hex')}`
    return url.toString()
  }

  /** Two instances on one fresh database, one Redis namespace and one data dir (the shared development secret). */
  const startPair = async (
    overrides: ConfigurationOverrides = {},
    options: { together?: boolean } = {}
  ): Promise<Pair> => {
    const mongodb = process.env.MONGODB_URL ? testMongoUrl() : emulatorDatabase('clinic_pair')
    const dataDir = tempDir('clinic-pair-')
    const shared = {
      mongodb,
      dataDir,
      redis: redis.url,
      redisPrefix: `test-${crypto.randomBytes(6).toString('hex')}`,
      ...overrides
    }
    const [a, b] = options.together
      ? await Promise.all([startServer(shared), startServer(shared)])
      : [await startServer(shared), await startServer(shared)]
    const sockets: { close(): void }[] = []
    return {
      a,
      b,
      async connect(url, user) {
        const socket = socketClient(url)
        sockets.push(socket)
        await socket.client.authenticate({ strategy: 'local', email: user.email, password: user.password })
        return socket.client
      },
      async close() {
        sockets.forEach((socket) => socket.close())
        await a.close({ keep: true })
        await b.close({ keep: true })
        const client = await MongoClient.connect(mongodb)
        await client.db().dropDatabase()
        await client.close()
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    }
  }

  describe('start-up', () => {
    const launch = async (env: Record<string, string>) => {
      const mongodb = process.env.MONGODB_URL ? testMongoUrl() : emulatorDatabase('clinic_boot')
      const dataDir = tempDir('clinic-boot-')
      const server = await startServerProcess({
        DATA_DIR: dataDir,
        MONGODB_URL: mongodb,
        LOG_LEVEL: 'warn',
        ...env
      })
      await server.kill('SIGTERM')
      fs.rmSync(dataDir, { recursive: true, force: true })
      const client = await MongoClient.connect(mongodb)
      await client.db().dropDatabase()
      await client.close()
      return server.output()
    }

    it('creates the application admin once when two instances start together with ADMIN_EMAIL', async () => {
      const admin = { email: 'admin@pair.test', password: 'admin password 1' }
      const pair = await startPair({ admin }, { together: true })
      try {
        const accounts = (await (pair.a.app.service('accounts' as any) as any)._find({
          query: { email: admin.email },
          paginate: false
        })) as any[]
        assert.equal(accounts.length, 1)
        assert.equal(accounts[0].admin, true)
        for (const server of [pair.a, pair.b]) assert.equal((await auth(server.url, admin)).status, 201)
      } finally {
        await pair.close()
      }
    })

    it('answers readiness 503 (store and indexes ok, start-up still running) while its start-up waits for another instance, then 200', async () => {
      const prefix = `ready-${crypto.randomBytes(4).toString('hex')}`
      const mongodb = process.env.MONGODB_URL ? testMongoUrl() : emulatorDatabase('clinic_ready')
      const dataDir = tempDir('clinic-ready-')
      // Another instance holds the admin bootstrap's lease: this one's start-up waits its turn.
      const other = createClient({ url: redis.url })
      await other.connect()
      await other.set(`${prefix}:lease:admin-bootstrap`, 'another-instance', {
        expiration: { type: 'PX', value: 30_000 }
      })
      const app = createApp({
        host: '127.0.0.1',
        port: 0,
        logLevel: 'silent',
        dataDir,
        mongodb,
        redis: redis.url,
        redisPrefix: prefix,
        admin: { email: 'admin@ready.test', password: 'admin password 1' }
      } as ConfigurationOverrides)
      const starting = app.listen(0, '127.0.0.1')
      const listener = app.server as Server
      await new Promise<void>((resolve) =>
        listener.listening ? resolve() : listener.once('listening', () => resolve())
      )
      const address = listener.address()
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
      try {
        await waitUntil(
          async () => (await http(url, 'GET', '/health/ready')).body.checks?.indexes === 'ok',
          20_000,
          'the indexes'
        )
        const waiting = await http(url, 'GET', '/health/ready')
        assert.equal(waiting.status, 503)
        assert.deepEqual(waiting.body, {
          status: 'starting',
          checks: { store: 'ok', indexes: 'ok', recovery: 'running', phase: 'starting', payments: 'sandbox' }
        })
        assert.equal((await http(url, 'GET', '/health/live')).status, 200)
        await other.del(`${prefix}:lease:admin-bootstrap`)
        await starting
        const ready = await http(url, 'GET', '/health/ready')
        assert.equal(ready.status, 200, JSON.stringify(ready.body))
        assert.equal(
          (await auth(url, { email: 'admin@ready.test', password: 'admin password 1' })).status,
          201
        )
      } finally {
        await other.close()
        await starting.catch(() => undefined)
        await app.teardown()
        const client = await MongoClient.connect(mongodb)
        await client.db().dropDatabase()
        await client.close()
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    })

    it('warns when MONGODB_URL is set without REDIS_URL, and not when both are set', async () => {
      assert.match(await launch({ REDIS_URL: '' }), /MONGODB_URL is set without REDIS_URL/)
      assert.doesNotMatch(
        await launch({ REDIS_URL: redis.url, REDIS_PREFIX: `boot-${crypto.randomBytes(4).toString('hex')}` }),
        /without REDIS_URL/
      )
    })
  })

  describe('realtime events and channel refreshes', () => {
    let pair: Pair
    before(async () => {
      pair = await startPair()
    })
    after(() => pair.close())

    it('publishes a change made on one instance to a permitted socket on the other, and nothing to a forbidden socket there', async () => {
      const owner = await signUp(pair.a.url)
      const other = await signUp(pair.a.url)
      const ownerOnB = recordEvents(await pair.connect(pair.b.url, owner), 'accounts')
      const otherOnB = recordEvents(await pair.connect(pair.b.url, other), 'accounts')

      assert.equal(
        (
          await restClient(pair.a.url, owner.token).patch(`/accounts/${owner.account.id}`, {
            firstName: 'Crossing'
          })
        ).status,
        200
      )
      await waitUntil(() => ownerOnB.length === 1, 5000, "the owner's event on the other instance")
      assert.equal(ownerOnB[0].event, 'patched')
      assert.equal(ownerOnB[0].data.firstName, 'Crossing')
      assert.equal(ownerOnB[0].data.password, undefined, 'no hash in events')

      // Events travel in order on one bus: once the other account's own later event has arrived, the owner's
      // event would have arrived before it, had it been sent there.
      assert.equal(
        (
          await restClient(pair.a.url, other.token).patch(`/accounts/${other.account.id}`, {
            firstName: 'Sentinel'
          })
        ).status,
        200
      )
      await waitUntil(() => otherOnB.length === 1, 5000, "the other account's own event")
      assert.deepEqual(
        otherOnB.map((seen) => seen.data?.firstName),
        ['Sentinel'],
        JSON.stringify(otherOnB)
      )
    })

    it('sends an admin watching the audit trail on one instance the events appended on the other, and nobody else', async () => {
      const admin = { email: 'admin@audit-pair.test', password: 'admin password 1' }
      const watched = await startPair({ admin })
      try {
        const watcher = await watched.connect(watched.a.url, admin)
        const idle = await watched.connect(watched.b.url, admin)
        const seen = recordEvents(watcher, 'audit-events', ['created'])
        const unasked = recordEvents(idle, 'audit-events', ['created'])
        assert.deepEqual(await watcher.service('audit-events').subscribe({}), { subscribed: true })
        // Instance B heard of the watcher (a notice through Redis) before it appends: its login events arrive on A.
        const user = await signUp(watched.b.url)
        await waitUntil(
          async () => {
            await auth(watched.b.url, { email: user.email, password: 'wrong password 1' })
            return seen.some(
              (event) => event.data.action === 'login-failed' && event.data.subject === user.email
            )
          },
          5000,
          "B's audit event on A"
        )
        assert.ok(seen.every((event) => event.event === 'created' && typeof event.data.hash === 'string'))
        assert.deepEqual(unasked, [])
      } finally {
        await watched.close()
      }
    })

    it('refreshes the channels of a socket on the other instance when its account is added to an organization', async () => {
      const owner = await signUp(pair.a.url, {
        organization: { name: 'Two Instance Clinic', type: 'facility' }
      })
      const joiner = await signUp(pair.a.url)
      const seenOnB = recordEvents(await pair.connect(pair.b.url, joiner), 'organizations')
      const ownerApi = restClient(pair.a.url, owner.token)

      assert.equal(
        (await ownerApi.patch(`/organizations/${owner.organization.id}`, { description: 'before joining' }))
          .status,
        200
      )
      await addMember(pair.a.url, owner, owner.organization.id, joiner)
      // The membership event reached instance B, whose refresh loads the new access context: the joiner's socket
      // there now receives the organization's events.
      await waitUntil(
        async () => {
          await ownerApi.patch(`/organizations/${owner.organization.id}`, {
            description: `after joining ${Date.now()}`
          })
          return seenOnB.length > 0
        },
        5000,
        'an organization event after joining'
      )
      assert.ok(
        seenOnB.every((seen) => String(seen.data.description).startsWith('after joining')),
        JSON.stringify(seenOnB)
      )
    })

    it("disconnects an account's sockets on the other instance, telling them why first, when it logs out everywhere on one", async () => {
      const user = await signUp(pair.a.url)
      const socket = socketClient(pair.b.url)
      try {
        await socket.client.authenticate({ strategy: 'local', email: user.email, password: user.password })
        assert.equal(socket.socket.connected, true)
        const ending = recordSessionEnd(socket)
        const ended = await http(pair.a.url, 'POST', '/authentication', {
          token: user.token,
          body: { action: 'logout-everywhere' }
        })
        assert.equal(ended.status, 201, JSON.stringify(ended.body))
        await waitUntil(() => !socket.socket.connected, 5000, 'the socket on the other instance disconnected')
        assert.deepEqual(ending, ['logout signed-out-everywhere', 'disconnect'])
      } finally {
        socket.close()
      }
    })

    it('cuts a connection on the other instance signed in with a token signed out on one, telling it why first', async () => {
      const user = await signUp(pair.a.url)
      const socket = socketClient(pair.b.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: user.token })
        const ending = recordSessionEnd(socket)
        assert.equal(
          (await http(pair.a.url, 'DELETE', `/authentication/${user.token}`, { token: user.token })).status,
          200
        )
        await waitUntil(() => !socket.socket.connected, 5000, 'the socket on the other instance disconnected')
        assert.deepEqual(ending, ['logout signed-out', 'disconnect'])
      } finally {
        socket.close()
      }
    })

    it('refuses on the other instance, at its next call, the tokens of a session ended on one (DELETE /sessions/:id), and cuts its socket there, telling it why first', async () => {
      const user = await signUp(pair.a.url)
      const second = (await auth(pair.a.url, { email: user.email, password: user.password })).body
      const sid = JSON.parse(Buffer.from(user.token.split('.')[1], 'base64url').toString('utf8')).sid
      const socket = socketClient(pair.b.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: user.token })
        const ending = recordSessionEnd(socket)
        assert.equal((await http(pair.b.url, 'GET', '/sessions', { token: user.token })).status, 200)
        const removed = await http(pair.a.url, 'DELETE', `/sessions/${sid}`, { token: second.accessToken })
        assert.equal(removed.status, 200, JSON.stringify(removed.body))
        assert.equal((await http(pair.b.url, 'GET', '/sessions', { token: user.token })).status, 401)
        await waitUntil(() => !socket.socket.connected, 5000, 'the socket on the other instance disconnected')
        assert.deepEqual(ending, ['logout session-revoked', 'disconnect'])
        assert.equal((await http(pair.b.url, 'GET', '/sessions', { token: second.accessToken })).status, 200)
      } finally {
        socket.close()
      }
    })

    it('rotates a refresh token on one instance; the same token on the other answers the same pair within the grace window, and ends the session on both after it', async () => {
      const clock = testClock()
      const timed = await startPair({ clock })
      try {
        const user = await signUp(timed.a.url)
        const login = (await auth(timed.a.url, { email: user.email, password: user.password })).body
        const refresh = (url: string, refreshToken: string) =>
          auth(url, { action: 'refreshAccessToken', refreshToken })
        const first = await refresh(timed.a.url, login.refreshToken)
        assert.equal(first.status, 201)
        const twin = await refresh(timed.b.url, login.refreshToken)
        assert.equal(twin.status, 201)
        assert.equal(twin.body.refreshToken, first.body.refreshToken)
        clock.advance(11_000)
        const reuse = await refresh(timed.b.url, login.refreshToken)
        assert.equal(reuse.status, 401)
        assert.equal(reuse.body.data.reason, 'refresh-reuse')
        assert.equal((await refresh(timed.a.url, first.body.refreshToken)).status, 401)
        const me = await http(timed.a.url, 'GET', '/sessions', { token: first.body.accessToken })
        assert.equal(me.status, 401)
      } finally {
        await timed.close()
      }
    })

    it('cuts the sockets of an account removed on the other instance, telling them why first', async () => {
      const admin = await signUp(pair.a.url)
      await pair.a.app.service('accounts')._patch(admin.account.id, { admin: true }) // (set-up: an application admin)
      const adminToken = (
        await http(pair.a.url, 'POST', '/authentication', {
          body: { email: admin.email, password: admin.password }
        })
      ).body.accessToken
      const user = await signUp(pair.a.url)
      const socket = socketClient(pair.b.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: user.token })
        const ending = recordSessionEnd(socket)
        const removed = await http(pair.a.url, 'DELETE', `/accounts/${user.account.id}`, {
          token: adminToken
        })
        assert.equal(removed.status, 200, JSON.stringify(removed.body))
        await waitUntil(() => !socket.socket.connected, 5000, 'the socket on the other instance disconnected')
        assert.deepEqual(ending, ['logout account-removed', 'disconnect'])
      } finally {
        socket.close()
      }
    })

    it('answers a directory search on one instance with a change made on the other', async () => {
      const owner = await signUp(pair.a.url)
      const created = await http(pair.a.url, 'POST', '/organizations', {
        token: owner.token,
        body: { type: 'facility', name: 'Riverside Infirmary', directory: { listed: true } }
      })
      assert.equal(created.status, 201, JSON.stringify(created.body))
      const names = async (url: string, search: string) =>
        (
          await http(url, 'GET', `/bff/unified-directory?$search=${encodeURIComponent(search)}`)
        ).body.data.map((entry: any) => entry.name)
      assert.deepEqual(await names(pair.b.url, 'riverside'), ['Riverside Infirmary'])
      assert.equal(
        (
          await http(pair.a.url, 'PATCH', `/organizations/${created.body.id}`, {
            token: owner.token,
            body: { name: 'Lakeside Infirmary' }
          })
        ).status,
        200
      )
      await waitUntil(
        async () => (await names(pair.b.url, 'lakeside')).length === 1,
        5000,
        'the renamed entry on the other instance'
      )
      assert.deepEqual(await names(pair.b.url, 'riverside'), [])
      assert.deepEqual(await names(pair.a.url, 'lakeside'), ['Lakeside Infirmary'])
    })

    it("keeps each instance's directory index in step with entries the other wrote (service changes, removals, repairs)", async () => {
      const owner = await signUp(pair.a.url)
      const names = async (url: string, qs: string) =>
        (await http(url, 'GET', `/bff/unified-directory?${qs}`)).body.data.map((entry: any) => entry.name)
      const created = await http(pair.a.url, 'POST', '/organizations', {
        token: owner.token,
        body: { type: 'facility', name: 'Pinecrest Laboratory', directory: { listed: true } }
      })
      assert.equal(created.status, 201, JSON.stringify(created.body))
      const service = await http(pair.a.url, 'POST', '/services', {
        token: owner.token,
        body: { facility: created.body.id, name: 'CBC', type: 'laboratory', price: 10 }
      })
      assert.equal(service.status, 201, JSON.stringify(service.body))
      await waitUntil(
        async () => (await names(pair.b.url, '$search=pinecrest&tags=sto:laboratory')).length === 1,
        5000,
        'the sto: tag on the other instance'
      )
      // An entry rebuilt on A with no service event behind it (as A's repair of a crash does) reaches B's index too.
      await pair.a.app
        .service('organizations' as any)
        ._patch(created.body.id, { name: 'Cedarcrest Laboratory' })
      const directory = directoryOf(pair.a.app)
      const source = directory.sources.find((one) => one.kind === 'organization')!
      await directory.rebuildEntry(source, created.body.id)
      await waitUntil(
        async () => (await names(pair.b.url, '$search=cedarcrest')).length === 1,
        5000,
        'the repaired entry on the other instance'
      )
      assert.deepEqual(await names(pair.b.url, '$search=pinecrest'), [])
      assert.equal(
        (await http(pair.a.url, 'DELETE', `/organizations/${created.body.id}`, { token: owner.token }))
          .status,
        200
      )
      await waitUntil(
        async () => (await names(pair.b.url, '$search=cedarcrest')).length === 0,
        5000,
        'the removal on the other instance'
      )
    })
  })

  describe('access cache', () => {
    let pair: Pair
    before(async () => {
      pair = await startPair()
    })
    after(() => pair.close())

    it('sees a membership change made on one instance in the next REST and Socket.IO call on both, after both cached the old rights', async () => {
      const owner = await signUp(pair.a.url, { organization: { name: 'Cached Clinic', type: 'facility' } })
      const doctor = await signUp(pair.a.url)
      const added = await http(pair.a.url, 'POST', '/organization-members', {
        token: owner.token,
        body: {
          organization: owner.organization.id,
          uid: doctor.account.id,
          roles: ['doctor'],
          privileges: []
        }
      })
      assert.equal(added.status, 201, JSON.stringify(added.body))
      const record = await http(pair.a.url, 'POST', '/medical-records', {
        token: owner.token,
        body: {
          ...validRecords.allergy,
          facility: owner.organization.id,
          patient: owner.account.id,
          permissions: [{ organization: owner.organization.id, roles: ['doctor'] }]
        }
      })
      assert.equal(record.status, 200, JSON.stringify(record.body))
      const onB = await pair.connect(pair.b.url, doctor)
      const statuses = async () => [
        (await http(pair.a.url, 'GET', `/medical-records/${record.body.id}`, { token: doctor.token })).status,
        (await http(pair.b.url, 'GET', `/medical-records/${record.body.id}`, { token: doctor.token })).status,
        await onB
          .service('medical-records')
          .get(record.body.id)
          .then(
            () => 200,
            (error: any) => error.code as number
          )
      ]
      // Both instances read (and cache) the doctor's rights, twice.
      assert.deepEqual(await statuses(), [200, 200, 200])
      assert.deepEqual(await statuses(), [200, 200, 200])
      const setRoles = async (roles: string[]) =>
        assert.equal(
          (
            await http(pair.a.url, 'PATCH', `/organization-members/${added.body.id}`, {
              token: owner.token,
              body: { roles }
            })
          ).status,
          200
        )
      await setRoles(['nurse'])
      assert.deepEqual(
        await statuses(),
        [404, 404, 404],
        'a role taken away on A is refused at once on A and B'
      )
      await setRoles(['doctor'])
      assert.deepEqual(await statuses(), [200, 200, 200], 'a role given back on A is honoured at once on B')
      assert.equal(
        (await http(pair.b.url, 'DELETE', `/organization-members/${added.body.id}`, { token: owner.token }))
          .status,
        200
      )
      assert.deepEqual(await statuses(), [404, 404, 404], 'a membership removed on B is refused at once on A')
    })
  })

  describe('rate limits', () => {
    let pair: Pair
    before(async () => {
      pair = await startPair({ rateLimits: { failedLoginsPerEmail: { points: 3, durationMs: 900000 } } })
    })
    after(() => pair.close())

    it('holds the failed-login limit of an email across both instances', async () => {
      const user = await signUp(pair.a.url)
      assert.equal((await auth(pair.a.url, { email: user.email, password: 'wrong 1' })).status, 401)
      assert.equal((await auth(pair.b.url, { email: user.email, password: 'wrong 2' })).status, 401)
      assert.equal((await auth(pair.a.url, { email: user.email, password: 'wrong 3' })).status, 401)
      const blocked = await auth(pair.b.url, { email: user.email, password: user.password })
      assert.equal(blocked.status, 429)
      assert.match(blocked.body.message, /Too many failed login attempts/)
      assert.equal((await auth(pair.a.url, { email: user.email, password: user.password })).status, 429)
    })
  })

  describe('the sandbox clock', () => {
    it('is one time for both instances: a move on one is read on the other, and never goes back', async () => {
      const pair = await startPair({ admin: ADMIN, sandboxClock: true, sessions: LONG_SESSIONS })
      try {
        const login = await http(pair.a.url, 'POST', '/authentication', {
          body: { strategy: 'local', ...ADMIN }
        })
        const admin = login.body.accessToken
        const moved = await restClient(pair.a.url, admin).patch('/sandbox/clock', { advanceMs: 3 * DAY })
        assert.equal(moved.status, 200, JSON.stringify(moved.body))
        assert.ok(moved.body.offsetMs >= 3 * DAY)
        const other = await restClient(pair.b.url, admin).get('/sandbox/clock')
        assert.equal(other.body.offsetMs, moved.body.offsetMs)
        // The other instance's own rules read it too, without asking (the move's notice through Redis).
        await waitUntil(
          () => depsSlot.require(pair.b.app).clock.now() - Date.now() >= 3 * DAY - 1000,
          5000,
          "instance b's clock"
        )
        // Two simultaneous moves of a day, one on each instance: both count.
        const both = await Promise.all(
          [pair.a, pair.b].map((via) =>
            restClient(via.url, admin).patch('/sandbox/clock', { advanceMs: DAY })
          )
        )
        assert.deepEqual(
          both.map((res) => res.status),
          [200, 200]
        )
        const after = await restClient(pair.a.url, admin).get('/sandbox/clock')
        assert.equal(after.body.offsetMs, moved.body.offsetMs + 2 * DAY)
        const back = await restClient(pair.b.url, admin).patch('/sandbox/clock', {
          now: after.body.now - DAY
        })
        assert.equal(back.status, 400)
      } finally {
        await pair.close()
      }
    })
  })

  describe('work done once', () => {
    let pair: Pair
    before(async () => {
      pair = await startPair()
    })
    after(() => pair.close())

    it('runs a billing recovery pass on one instance when both start one at once, and the leftover is resolved once', async () => {
      const facility = await setupFacility(pair.a.url)
      const { invoice, items } = await invoiceWithItems(pair.a.url, facility, [100])
      await pay(pair.a.url, facility, items[0].id, 10)
      const itemStore = pair.a.app.service('billing-items' as any) as any
      await itemStore._patch(items[0].id, {
        $inc: { reserved: 2500 },
        $push: { pending: { key: 'vanished-payment', amount: 2500, at: 1 } }
      })

      const everything = { operationsBefore: Date.now() + 1, paymentsBefore: Date.now() + 1, sweepSince: 0 }
      const reports = await Promise.all([
        recoverBillingOnce(pair.a.app, depsSlot.require(pair.a.app), everything),
        recoverBillingOnce(pair.b.app, depsSlot.require(pair.b.app), everything)
      ])
      const ran = reports.filter((report) => report !== null)
      assert.equal(ran.length, 1, 'one instance ran the pass, the other found the lease taken')
      assert.equal(ran[0]!.reservationsReleased, 1)

      const item = (await restClient(pair.b.url, facility.member.token).get(`/billing-items/${items[0].id}`))
        .body
      assert.deepEqual([item.paid, item.balance], [10, 90])
      assert.deepEqual((await itemStore._get(items[0].id)).pending, [])
      assert.equal(
        (await restClient(pair.b.url, facility.member.token).get(`/billing-invoices/${invoice.id}`)).body
          .paid,
        10
      )
      // The lease is released: the next pass runs (and finds nothing left to release).
      const next = await recoverBillingOnce(pair.b.app, depsSlot.require(pair.b.app), everything)
      assert.ok(next)
      assert.equal(next.reservationsReleased, 0)
    })

    it('runs start-up steps (the admin bootstrap) one instance at a time: the second waits for the first to finish', async () => {
      const steps: string[] = []
      const step = (name: string) => async () => {
        steps.push(`${name} start`)
        await new Promise((resolve) => setTimeout(resolve, 300))
        steps.push(`${name} end`)
        return name
      }
      const done = await Promise.all([
        withLeaseWaiting(pair.a.app, 'admin-bootstrap', 30_000, step('a')),
        withLeaseWaiting(pair.b.app, 'admin-bootstrap', 30_000, step('b'))
      ])
      assert.deepEqual(done, ['a', 'b'])
      assert.equal(steps.length, 4)
      assert.ok(
        steps[0].endsWith('start') &&
          steps[1].endsWith('end') &&
          steps[0].split(' ')[0] === steps[1].split(' ')[0],
        steps.join(', ')
      )
      assert.ok(steps[2].endsWith('start') && steps[3].endsWith('end'), steps.join(', '))
    })

    it('runs the time-driven subscription pass once when both instances run it on one clock: one charge, one status change', async () => {
      const stripe = await startStripeServer()
      const clock = testClock()
      const subsPair = await startPair({
        admin: ADMIN,
        clock,
        sessions: LONG_SESSIONS,
        subscriptions: { ...defaults.subscriptions, jobIntervalMs: 40 },
        processor: {
          kind: 'stripe',
          timeoutMs: 3000,
          stripe: {
            secretKey: stripe.secretKey,
            host: '127.0.0.1',
            port: String(stripe.port),
            protocol: 'http',
            webhookSecret: 'whsec_pair'
          }
        }
      } as ConfigurationOverrides)
      try {
        const packages = (await http(subsPair.b.url, 'GET', '/subscription/packages?$limit=50')).body.data
        const pro = packages.find((pkg: any) => pkg.key === 'clinic-pro')
        assert.ok(pro?.trialDays > 0, JSON.stringify(packages.map((pkg: any) => pkg.key)))
        const owner = await signUpWith(subsPair.a.url, pro.id)
        assert.equal(owner.subscription.status, 'trialing')
        const card = await http(subsPair.b.url, 'POST', '/billing/customers', {
          token: owner.token,
          body: { owner: { organization: owner.organization.id }, processorToken: 'tok_visa' }
        })
        assert.equal(card.status, 201, JSON.stringify(card.body))
        const customer = card.body.processorCustomerId

        clock.advance(15 * DAY)
        const active = await waitForStatus(subsPair.b.url, owner.token, owner.subscription.id, 'active')
        // Several more passes of both instances (every 40 ms each) find nothing left to do.
        await new Promise((resolve) => setTimeout(resolve, 500))
        assert.deepEqual(
          stripe.paymentIntents
            .filter((intent) => intent.customer === customer)
            .map((intent) => [intent.status, intent.amount]),
          [['succeeded', pro.price]],
          'the trial end was charged once'
        )
        const after = await readSubscription(subsPair.a.url, owner.token, owner.subscription.id)
        assert.equal(
          after.statusHistory.filter((entry: any) => entry.status === 'active').length,
          1,
          JSON.stringify(after.statusHistory)
        )
        assert.equal(after.currentPeriodEnd, active.currentPeriodEnd)
      } finally {
        await subsPair.close()
        await stripe.close()
      }
    })

    it('sends each webhook delivery once, in order, with changes made on both instances and both workers claiming', async () => {
      let receiver: TestWebhookReceiver | undefined
      try {
        receiver = await startWebhookReceiver()
        const owner = await signUp(pair.a.url, { organization: { name: 'Hooked Clinic', type: 'facility' } })
        const installed = await restClient(pair.a.url, owner.token).post('/webhook-events', {
          organization: owner.organization.id,
          url: receiver.url,
          events: 'organizations.patch'
        })
        assert.equal(installed.status, 201, JSON.stringify(installed.body))
        receiver.setSecret(installed.body.secret)
        const count = 12
        for (let i = 1; i <= count; i++) {
          const via = i % 2 ? pair.a : pair.b
          assert.equal(
            (
              await restClient(via.url, owner.token).patch(`/organizations/${owner.organization.id}`, {
                description: `change ${i}`
              })
            ).status,
            200
          )
        }
        await receiver.waitForCount(count)
        assert.equal(
          (
            await restClient(pair.b.url, owner.token).patch(`/organizations/${owner.organization.id}`, {
              description: 'sentinel'
            })
          ).status,
          200
        )
        await receiver.waitForCount(count + 1)
        assert.deepEqual(
          receiver.received.map((r) => r.body.payload.description),
          [...Array.from({ length: count }, (_, i) => `change ${i + 1}`), 'sentinel']
        )
        assert.equal(new Set(receiver.received.map((r) => r.body.id)).size, count + 1)
        assert.ok(receiver.received.every((r) => r.verified === true))
      } finally {
        await receiver?.close()
      }
    })
  })
})
