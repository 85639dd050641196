import assert from 'node:assert/strict'
import fs from 'node:fs'
import { MongoClient } from 'mongodb'
import {
  restClient,
  signUp,
  startServer,
  tempDir,
  testMongoUrl,
  waitUntil,
  type SignedUp
} from '../helpers/app'
import { startWebhookReceiver, type TestWebhookReceiver } from '../helpers/webhook-receiver'
import { startServerProcess, type ServerProcess } from '../helpers/server-process'
import type { WebhookWorker } from '../../src/jobs/webhook-worker'
import { createWebhookWorker } from '../../src/ops/jobs'

const settings = (extra: Record<string, unknown> = {}) => ({
  webhooks: {
    allowPrivate: true,
    retryDelaysMs: [200, 200, 200],
    timeoutMs: 2000,
    pollIntervalMs: 50,
    leaseMarginMs: 500,
    ...extra
  }
})

/** A server, an organization with its superadmin, and helpers to install webhooks and read deliveries. */
const setup = async (extra: Record<string, unknown> = {}) => {
  const server = await startServer(settings(extra))
  const owner = await signUp(server.url, { organization: { name: 'Clinic', type: 'facility' } })
  const api = restClient(server.url, owner.token)
  const receivers: TestWebhookReceiver[] = []
  const install = async (events = 'organizations.patch', body: Record<string, unknown> = {}) => {
    const receiver = await startWebhookReceiver()
    receivers.push(receiver)
    const res = await api.post('/webhook-events', {
      organization: owner.organization.id,
      url: receiver.url,
      events,
      ...body
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    receiver.setSecret(res.body.secret)
    return { receiver, webhook: res.body }
  }
  const deliveries = async (webhookId: string) =>
    (await api.get(`/webhook-events?webhook=${webhookId}&$sort[createdAt]=1&$limit=100`)).body.data
  const change = (description: string) =>
    api.patch(`/organizations/${owner.organization.id}`, { description })
  const close = async () => {
    // Receivers first: their sockets close, so attempts in flight end before the server stops.
    await Promise.all(receivers.map((r) => r.close()))
    await server.close()
  }
  return { server, owner, api, install, deliveries, change, close }
}

describe('webhook delivery worker', () => {
  describe('retries', () => {
    let env: Awaited<ReturnType<typeof setup>>
    before(async () => {
      env = await setup()
    })
    after(() => env.close())

    it('delivers on the third attempt to a receiver that answers 500 twice, with one id across attempts', async () => {
      const { receiver, webhook } = await env.install()
      receiver.respondWith((n) => (n <= 2 ? 500 : 200))
      await env.change('third time lucky')
      await receiver.waitForCount(3)
      const ids = receiver.received.map((r) => r.headers['webhook-id'])
      assert.equal(new Set(ids).size, 1)
      assert.ok(receiver.received.every((r) => r.verified === true && r.body.id === ids[0]))
      await waitUntil(
        async () => (await env.deliveries(webhook.id))[0].status === 'delivered',
        5000,
        'delivered'
      )
      const [delivery] = await env.deliveries(webhook.id)
      assert.equal(delivery.attempts, 3)
      assert.equal(delivery.lastResponse.status, 200)
      assert.equal(receiver.received.length, 3)
      const hook = (await env.api.get(`/webhooks/${webhook.id}`)).body
      assert.equal(hook.active, true)
      assert.equal(hook.consecutiveFailures, 0)
      assert.equal(hook.failingSince, undefined)
    })

    it('sends deliveries to one webhook in creation order, a retried one holding those behind it', async () => {
      const { receiver } = await env.install()
      receiver.respondWith((n) => (n === 1 ? 500 : 200))
      for (let i = 1; i <= 5; i++) await env.change(`change ${i}`)
      await receiver.waitForCount(6)
      assert.deepEqual(
        receiver.received.map((r) => r.body.payload.description),
        ['change 1', 'change 1', 'change 2', 'change 3', 'change 4', 'change 5']
      )
    })
  })

  describe('a receiver that never answers', () => {
    let env: Awaited<ReturnType<typeof setup>>
    before(async () => {
      // (a timeout long enough that each attempt reaches the receiver before it expires, even on a busy machine)
      env = await setup({ timeoutMs: 1000, retryDelaysMs: [100, 100] })
    })
    after(() => env.close())

    it('is retried, then the delivery is marked failed with the reason', async () => {
      const { receiver, webhook } = await env.install()
      receiver.respondWith(() => 'hang')
      await env.change('nobody listens')
      await waitUntil(async () => (await env.deliveries(webhook.id))[0]?.status === 'failed', 8000, 'failed')
      const [delivery] = await env.deliveries(webhook.id)
      assert.equal(delivery.attempts, 3)
      assert.match(delivery.lastResponse.error, /timed out/)
      assert.equal(delivery.lastResponse.status, undefined)
      assert.equal(typeof delivery.failedAt, 'number')
      assert.equal(receiver.received.length, 3)
      assert.equal(new Set(receiver.received.map((r) => r.body.id)).size, 1)
      // (the webhook's failure streak is written right after the delivery's outcome: wait for it, not race it)
      await waitUntil(
        async () => (await env.api.get(`/webhooks/${webhook.id}`)).body.consecutiveFailures === 3,
        5000,
        'the streak of three failures on the webhook'
      )
      const hook = (await env.api.get(`/webhooks/${webhook.id}`)).body
      assert.equal(hook.consecutiveFailures, 3)
      assert.equal(typeof hook.failingSince, 'number')
    })
  })

  describe('isolation between webhooks', () => {
    let env: Awaited<ReturnType<typeof setup>>
    before(async () => {
      env = await setup({ timeoutMs: 10000, retryDelaysMs: [] })
    })
    after(() => env.close())

    it('keeps delivering to other webhooks while one receiver hangs', async () => {
      const dead = await env.install()
      dead.receiver.respondWith(() => 'hang')
      const alive = await env.install()
      for (let i = 1; i <= 3; i++) await env.change(`isolated ${i}`)
      await alive.receiver.waitForCount(3)
      assert.deepEqual(
        alive.receiver.received.map((r) => r.body.payload.description),
        ['isolated 1', 'isolated 2', 'isolated 3']
      )
      // The dead receiver holds its first delivery (still in flight) and nothing else.
      assert.equal(dead.receiver.received.length, 1)
      const waiting = await env.deliveries(dead.webhook.id)
      assert.deepEqual(
        waiting.map((d: any) => [d.status, d.attempts]),
        [
          ['pending', 1],
          ['pending', 0],
          ['pending', 0]
        ]
      )
    })
  })

  describe('per-webhook concurrency', () => {
    let env: Awaited<ReturnType<typeof setup>>
    before(async () => {
      env = await setup({ timeoutMs: 10000, retryDelaysMs: [], concurrencyPerWebhook: 2 })
    })
    after(() => env.close())

    it('keeps at most the configured number of attempts in flight to one webhook, the oldest first', async () => {
      const dead = await env.install()
      dead.receiver.respondWith(() => 'hang')
      const alive = await env.install()
      for (let i = 1; i <= 4; i++) await env.change(`window ${i}`)
      await dead.receiver.waitForCount(2)
      await alive.receiver.waitForCount(4)
      assert.deepEqual(dead.receiver.received.map((r) => r.body.payload.description).sort(), [
        'window 1',
        'window 2'
      ])
      const waiting = await env.deliveries(dead.webhook.id)
      assert.deepEqual(
        waiting.map((d: any) => d.attempts),
        [1, 1, 0, 0]
      )
    })
  })

  describe('deactivation', () => {
    let env: Awaited<ReturnType<typeof setup>>
    before(async () => {
      env = await setup({ retryDelaysMs: [200, 200], deactivateAfterMs: 300 })
    })
    after(() => env.close())

    it('deactivates a webhook whose attempts keep failing for the window, pauses its queue, and resumes it when the owner reactivates it', async () => {
      const { receiver, webhook } = await env.install()
      receiver.respondWith(() => 500)
      await env.change('first')
      await env.change('second')
      await waitUntil(
        async () => (await env.api.get(`/webhooks/${webhook.id}`)).body.active === false,
        8000,
        'deactivation'
      )
      const off = (await env.api.get(`/webhooks/${webhook.id}`)).body
      assert.match(off.deactivatedReason, /consecutive failed attempts since/)
      assert.equal(typeof off.deactivatedAt, 'number')
      assert.ok(off.consecutiveFailures >= 2)
      const [first, second] = await env.deliveries(webhook.id)
      assert.equal(second.status, 'pending')
      assert.equal(second.attempts, 0)
      assert.ok(receiver.received.every((r) => r.body.id === first.id))

      // Inactive: new changes are not recorded.
      await env.change('while inactive')
      assert.equal((await env.deliveries(webhook.id)).length, 2)

      receiver.respondWith(() => 200)
      const on = await env.api.patch(`/webhooks/${webhook.id}`, { active: true })
      assert.equal(on.status, 200)
      assert.equal(on.body.active, true)
      assert.equal(on.body.deactivatedReason, undefined)
      assert.equal(on.body.failingSince, undefined)
      assert.equal(on.body.consecutiveFailures, 0)
      await waitUntil(
        async () => (await env.deliveries(webhook.id))[1].status === 'delivered',
        5000,
        'paused delivery sent'
      )
      assert.ok(['failed', 'delivered'].includes((await env.deliveries(webhook.id))[0].status))
      assert.equal(receiver.received.filter((r) => r.body.id === second.id).length, 1)
    })
  })

  describe('private addresses at delivery', () => {
    let env: Awaited<ReturnType<typeof setup>>
    before(async () => {
      env = await setup({ allowPrivate: false, retryDelaysMs: [] })
    })
    after(() => env.close())

    it('fails an attempt to an address that has become private, saying so', async () => {
      const registered = await env.api.post('/webhook-events', {
        organization: env.owner.organization.id,
        url: 'https://93.184.216.34/hooks',
        events: 'organizations.patch'
      })
      assert.equal(registered.status, 201)
      // The host now points at loopback, as a DNS answer that changed after registration would.
      const receiver = await startWebhookReceiver()
      try {
        await (env.server.app.service('webhooks' as any) as any)._patch(registered.body.id, {
          url: receiver.url
        })
        const ping = await env.api.post('/webhook-events', { webhook: registered.body.id, event: 'ping' })
        await waitUntil(
          async () => (await env.api.get(`/webhook-events/${ping.body.id}`)).body.status === 'failed',
          5000,
          'failed'
        )
        const delivery = (await env.api.get(`/webhook-events/${ping.body.id}`)).body
        assert.match(delivery.lastResponse.error, /address is private: 127\.0\.0\.1/)
        assert.equal(receiver.received.length, 0)
      } finally {
        await receiver.close()
      }
    })
  })

  describe('several workers on one datastore', () => {
    let env: Awaited<ReturnType<typeof setup>>
    let second: WebhookWorker
    before(async () => {
      env = await setup()
      second = createWebhookWorker(env.server.app)
      await second.start()
    })
    after(async () => {
      await second.stop()
      await env.close()
    })

    it('sends each delivery once, in order, whichever worker claims it', async () => {
      const { receiver } = await env.install()
      const count = 20
      for (let i = 1; i <= count; i++) await env.change(`shared ${i}`)
      await receiver.waitForCount(count)
      // Every delivery is claimed by exactly one worker: nothing arrives twice, nothing out of order.
      await env.change('sentinel')
      await receiver.waitForCount(count + 1)
      assert.deepEqual(
        receiver.received.map((r) => r.body.payload.description),
        [...Array.from({ length: count }, (_, i) => `shared ${i + 1}`), 'sentinel']
      )
      assert.equal(new Set(receiver.received.map((r) => r.body.id)).size, count + 1)
    })
  })

  describe('crash and restart', () => {
    let dataDir: string
    let mongodb: string
    let child: ServerProcess | undefined
    let receiver: TestWebhookReceiver
    before(async () => {
      dataDir = tempDir('clinic-webhook-crash-')
      mongodb = testMongoUrl()
      receiver = await startWebhookReceiver()
    })
    after(async () => {
      await child?.kill()
      await receiver.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
      if (mongodb) {
        const client = await MongoClient.connect(mongodb)
        await client.db().dropDatabase()
        await client.close()
      }
    })

    const launch = () =>
      startServerProcess({
        DATA_DIR: dataDir,
        MONGODB_URL: mongodb,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_TIMEOUT: '2',
        WEBHOOK_LEASE_MARGIN: '0.2',
        WEBHOOK_RETRY_DELAYS: '0.2,0.2,0.2',
        WEBHOOK_POLL_INTERVAL: '0.05'
      })

    it('delivers every pending and in-flight delivery after a kill -9 and a restart on the same data', async function () {
      // (two server processes start: on a busy machine that alone can take most of the default 30 s)
      this.timeout(90_000)
      child = await launch()
      const owner: SignedUp = await signUp(child.url, {
        organization: { name: 'Crash clinic', type: 'facility' }
      })
      const api = restClient(child.url, owner.token)
      const installed = await api.post('/webhook-events', {
        organization: owner.organization.id,
        url: receiver.url,
        events: 'organizations.patch'
      })
      assert.equal(installed.status, 201)
      receiver.setSecret(installed.body.secret)
      receiver.respondWith(() => 'hang')
      const count = 4
      for (let i = 1; i <= count; i++)
        assert.equal(
          (await api.patch(`/organizations/${owner.organization.id}`, { description: `before crash ${i}` }))
            .status,
          200
        )
      // The first delivery is in flight (the receiver holds it), the others wait behind it.
      await receiver.waitForCount(1)
      await child.kill('SIGKILL')

      receiver.respondWith(() => 200)
      child = await launch()
      const expected = Array.from({ length: count }, (_, i) => `before crash ${i + 1}`)
      await waitUntil(
        () => new Set(receiver.received.map((r) => r.body.payload.description)).size === count,
        15000,
        'every delivery after restart'
      )
      assert.ok(receiver.received.every((r) => r.verified === true))
      // At least once: the one in flight at the crash arrives again (same webhook-id), the rest once, in order.
      const afterRestart = receiver.received.slice(1).map((r) => r.body.payload.description)
      assert.deepEqual(afterRestart, expected)
      assert.equal(receiver.received[0].body.id, receiver.received[1].body.id)

      const restartedApi = restClient(child.url, owner.token)
      await waitUntil(
        async () => {
          const list = (await restartedApi.get(`/webhook-events?webhook=${installed.body.id}`)).body
          return list.total === count && list.data.every((d: any) => d.status === 'delivered')
        },
        5000,
        'all delivered'
      )
    })
  })
})
