import assert from 'node:assert/strict'
import { restClient, signUp, startServer, waitUntil, type SignedUp, type TestServer } from '../../helpers/app'
import { startWebhookReceiver, type TestWebhookReceiver } from '../../helpers/webhook-receiver'
import { validRecords } from '../../fixtures/medical-records'

const settings = {
  webhooks: {
    allowPrivate: true,
    retryDelaysMs: [100],
    timeoutMs: 2000,
    pollIntervalMs: 50,
    leaseMarginMs: 500
  }
}

describe('webhook events: pings, deliveries of service events, listing and retry', () => {
  let server: TestServer
  let owner: SignedUp
  let member: SignedUp
  let stranger: SignedUp
  let api: ReturnType<typeof restClient>
  const receivers: TestWebhookReceiver[] = []

  before(async () => {
    server = await startServer(settings)
    owner = await signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } })
    member = await signUp(server.url)
    stranger = await signUp(server.url, { organization: { name: 'Clinic B', type: 'facility' } })
    api = restClient(server.url, owner.token)
    assert.equal(
      (
        await api.post('/organization-members', {
          organization: owner.organization.id,
          uid: member.account.id
        })
      ).status,
      201
    )
  })
  after(async () => {
    await server.close()
    await Promise.all(receivers.map((r) => r.close()))
  })

  /** Installs a webhook pointing at a fresh receiver that checks its signatures. */
  const install = async (body: Record<string, unknown>, token = owner.token) => {
    const receiver = await startWebhookReceiver()
    receivers.push(receiver)
    const res = await api.post('/webhook-events', { active: true, url: receiver.url, ...body }, { token })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    receiver.setSecret(res.body.secret)
    return { receiver, webhook: res.body }
  }

  const deliveriesOf = async (webhookId: string, token = owner.token) => {
    const res = await api.get(`/webhook-events?webhook=${webhookId}`, { token })
    assert.equal(res.status, 200)
    return res.body
  }

  describe('ping', () => {
    it('queues a ping that the receiver gets signed, with the event id as webhook-id', async () => {
      const { receiver, webhook } = await install({
        organization: owner.organization.id,
        events: 'organizations.patch'
      })
      const res = await api.post('/webhook-events', { webhook: webhook.id, event: 'ping' })
      assert.equal(res.status, 201)
      assert.equal(res.body.webhook, webhook.id)
      assert.equal(res.body.event, 'ping')
      assert.equal(res.body.status, 'pending')
      assert.equal(res.body.attempts, 0)
      assert.equal(typeof res.body.createdAt, 'number')

      await receiver.waitForCount(1)
      const [hit] = receiver.received
      assert.equal(hit.verified, true)
      assert.deepEqual(hit.body, { id: res.body.id, event: 'ping', payload: { webhook: webhook.id } })
      assert.equal(hit.headers['webhook-id'], res.body.id)
      assert.equal(hit.headers['content-type'], 'application/json')

      await waitUntil(
        async () => (await deliveriesOf(webhook.id)).data[0]?.status === 'delivered',
        5000,
        'delivered status'
      )
      const [delivery] = (await deliveriesOf(webhook.id)).data
      assert.equal(delivery.id, res.body.id)
      assert.equal(delivery.attempts, 1)
      assert.equal(delivery.lastResponse.status, 200)
      assert.equal(typeof delivery.deliveredAt, 'number')
      assert.equal(typeof delivery.lastAttemptAt, 'number')
    })

    it('refuses a ping without a token (401) and to a webhook the caller does not own (404)', async () => {
      const { webhook } = await install({ organization: owner.organization.id, events: '*' })
      assert.equal(
        (await api.post('/webhook-events', { webhook: webhook.id, event: 'ping' }, { token: '' })).status,
        401
      )
      assert.equal(
        (await api.post('/webhook-events', { webhook: webhook.id, event: 'ping' }, { token: member.token }))
          .status,
        404
      )
      assert.equal(
        (await api.post('/webhook-events', { webhook: webhook.id, event: 'ping' }, { token: stranger.token }))
          .status,
        404
      )
      assert.equal(
        (await api.post('/webhook-events', { webhook: 'ffffffffffffffffffffffff', event: 'ping' })).status,
        404
      )
      assert.equal((await deliveriesOf(webhook.id)).total, 0)
    })

    it('refuses other events, a missing webhook and extra fields with 400 naming them', async () => {
      const { webhook } = await install({ organization: owner.organization.id, events: '*' })
      const pong = await api.post('/webhook-events', { webhook: webhook.id, event: 'pong' })
      assert.equal(pong.status, 400)
      assert.deepEqual(
        pong.body.errors.map((e: any) => e.field),
        ['event']
      )
      const missing = await api.post('/webhook-events', { event: 'ping' })
      assert.equal(missing.status, 400)
      assert.deepEqual(
        missing.body.errors.map((e: any) => e.field),
        ['webhook']
      )
      const extra = await api.post('/webhook-events', { webhook: webhook.id, event: 'ping', payload: {} })
      assert.equal(extra.status, 400)
      assert.deepEqual(
        extra.body.errors.map((e: any) => e.field),
        ['payload']
      )
    })

    it('refuses to ping an inactive webhook with 409', async () => {
      const { webhook } = await install({ organization: owner.organization.id, events: '*', active: false })
      const res = await api.post('/webhook-events', { webhook: webhook.id, event: 'ping' })
      assert.equal(res.status, 409)
    })
  })

  describe('service events', () => {
    it('delivers create, patch and remove of organization members, in order, signed, with the documents', async () => {
      const { receiver, webhook } = await install({
        organization: owner.organization.id,
        events: 'organization-members'
      })
      const extra = await signUp(server.url)
      const created = await api.post('/organization-members', {
        organization: owner.organization.id,
        uid: extra.account.id,
        roles: ['nurse']
      })
      assert.equal(created.status, 201)
      const patched = await api.patch(`/organization-members/${created.body.id}`, {
        roles: ['nurse', 'cashier']
      })
      assert.equal(patched.status, 200)
      const removed = await api.delete(`/organization-members/${created.body.id}`)
      assert.equal(removed.status, 200)

      await receiver.waitForCount(3)
      assert.deepEqual(
        receiver.received.map((r) => r.body.event),
        ['organization-members.create', 'organization-members.patch', 'organization-members.remove']
      )
      assert.ok(receiver.received.every((r) => r.verified === true))
      // The documents as answered, but for the member's display name: added to answers and realtime events at
      // read, never stored, so not in webhook payloads.
      const stored = ({ name: _name, ...doc }: Record<string, unknown>) => doc
      assert.deepEqual(receiver.received[0].body.payload, stored(created.body))
      assert.deepEqual(receiver.received[1].body.payload, stored(patched.body))
      assert.deepEqual(receiver.received[2].body.payload, stored(removed.body))
      assert.ok('name' in created.body)
      for (const hit of receiver.received) assert.equal(hit.headers['webhook-id'], hit.body.id)
      assert.equal(new Set(receiver.received.map((r) => r.body.id)).size, 3)

      const list = await deliveriesOf(webhook.id)
      assert.equal(list.total, 3)
      assert.deepEqual(
        new Set(list.data.map((d: any) => d.id)),
        new Set(receiver.received.map((r) => r.body.id))
      )
    })

    it('delivers only the subscribed methods', async () => {
      const { receiver } = await install({
        organization: owner.organization.id,
        events: 'organizations.patch'
      })
      const extra = await signUp(server.url)
      const created = await api.post('/organization-members', {
        organization: owner.organization.id,
        uid: extra.account.id
      })
      await api.delete(`/organization-members/${created.body.id}`)
      await api.patch(`/organizations/${owner.organization.id}`, { description: 'only this' })
      await receiver.waitForCount(1)
      assert.deepEqual(
        receiver.received.map((r) => r.body.event),
        ['organizations.patch']
      )
      assert.equal(receiver.received[0].body.payload.description, 'only this')
    })

    it("gives another organization's webhook nothing of this organization's documents", async () => {
      const other = await install({ organization: stranger.organization.id, events: '*' }, stranger.token)
      const mine = await install({ organization: owner.organization.id, events: '*' })
      const extra = await signUp(server.url)
      const created = await api.post('/organization-members', {
        organization: owner.organization.id,
        uid: extra.account.id
      })
      await api.patch(`/organizations/${owner.organization.id}`, { description: 'private to A' })
      await api.delete(`/organization-members/${created.body.id}`)
      // A last change in B: deliveries to one webhook go out in order, so anything of A's would arrive before it.
      await api.patch(
        `/organizations/${stranger.organization.id}`,
        { description: 'B only' },
        { token: stranger.token }
      )
      await other.receiver.waitForCount(1)
      await mine.receiver.waitForCount(3)
      assert.deepEqual(
        other.receiver.received.map((r) => [r.body.event, r.body.payload.id]),
        [['organizations.patch', stranger.organization.id]]
      )
      assert.ok(
        mine.receiver.received.every(
          (r) => (r.body.payload.organization ?? r.body.payload.id) === owner.organization.id
        )
      )
      assert.ok(!JSON.stringify(other.receiver.received).includes(owner.organization.id))
    })

    it('gives an account webhook only what that account may read, without secrets', async () => {
      const { receiver } = await install(
        { account: member.account.id, events: 'organizations,accounts' },
        member.token
      )
      // Not readable by the member: another organization, another account.
      await api.patch(
        `/organizations/${stranger.organization.id}`,
        { description: 'not for the member' },
        { token: stranger.token }
      )
      await api.patch(`/accounts/${owner.account.id}`, { firstName: 'Owner' })
      // Readable: the member's organization and the member's own account (the last change, so everything earlier is in).
      await api.patch(`/organizations/${owner.organization.id}`, { description: 'for members' })
      const self = await api.patch(
        `/accounts/${member.account.id}`,
        { firstName: 'Member' },
        { token: member.token }
      )
      assert.equal(self.status, 200)
      await receiver.waitForCount(2)
      assert.deepEqual(
        receiver.received.map((r) => [r.body.event, r.body.payload.id]),
        [
          ['organizations.patch', owner.organization.id],
          ['accounts.patch', member.account.id]
        ]
      )
      assert.equal(receiver.received[1].body.payload.firstName, 'Member')
      assert.equal(receiver.received[1].body.payload.password, undefined)
      assert.ok(!receiver.received[1].raw.includes('password'))
    })

    it('delivers medical records to an account webhook only when that account may read them', async () => {
      const { receiver } = await install(
        { account: member.account.id, events: 'medical-records' },
        member.token
      )
      const body = { ...validRecords['ape-report'], facility: owner.organization.id }
      const hidden = await api.post('/medical-records', { ...body, permissions: [] })
      assert.equal(hidden.status, 200, JSON.stringify(hidden.body))
      const shared = await api.post('/medical-records', {
        ...body,
        permissions: [{ uid: member.account.id }]
      })
      assert.equal(shared.status, 200, JSON.stringify(shared.body))
      const removed = await api.delete(`/medical-records/${shared.body.id}`)
      assert.equal(removed.status, 200, JSON.stringify(removed.body))
      await receiver.waitForCount(2)
      assert.deepEqual(
        receiver.received.map((r) => [r.body.event, r.body.payload.id]),
        [
          ['medical-records.create', shared.body.id],
          ['medical-records.remove', shared.body.id]
        ]
      )
      assert.deepEqual(receiver.received[0].body.payload, shared.body)
      assert.ok(!JSON.stringify(receiver.received).includes(hidden.body.id))
    })

    it('records nothing for an inactive webhook', async () => {
      const { receiver, webhook } = await install({
        organization: owner.organization.id,
        events: 'organizations',
        active: false
      })
      const live = await install({ organization: owner.organization.id, events: 'organizations' })
      await api.patch(`/organizations/${owner.organization.id}`, { description: 'while inactive' })
      await live.receiver.waitForCount(1)
      assert.equal((await deliveriesOf(webhook.id)).total, 0)
      assert.equal(receiver.received.length, 0)
    })
  })

  describe('GET /webhook-events', () => {
    let webhook: any
    before(async () => {
      const installed = await install({ organization: owner.organization.id, events: 'organizations.patch' })
      webhook = installed.webhook
      await api.patch(`/organizations/${owner.organization.id}`, { description: 'one' })
      await api.patch(`/organizations/${owner.organization.id}`, { description: 'two' })
      await installed.receiver.waitForCount(2)
      await waitUntil(
        async () => (await deliveriesOf(webhook.id)).data.every((d: any) => d.status === 'delivered'),
        5000,
        'delivered'
      )
    })

    it("lists a webhook's deliveries to its owner, newest first, with status, attempts, last response and timestamps", async () => {
      const list = await deliveriesOf(webhook.id)
      assert.equal(list.total, 2)
      assert.deepEqual(
        list.data.map((d: any) => d.payload.description),
        ['two', 'one']
      )
      for (const d of list.data) {
        assert.equal(d.webhook, webhook.id)
        assert.equal(d.organization, owner.organization.id)
        assert.equal(d.event, 'organizations.patch')
        assert.equal(d.status, 'delivered')
        assert.equal(d.attempts, 1)
        assert.equal(d.lastResponse.status, 200)
        assert.equal(typeof d.lastResponse.durationMs, 'number')
        for (const field of ['createdAt', 'lastAttemptAt', 'deliveredAt', 'nextAttemptAt'])
          assert.equal(typeof d[field], 'number', field)
        for (const hidden of ['payloadJson', 'leaseUntil', 'leaseOwner', 'secret'])
          assert.equal(d[hidden], undefined, hidden)
      }
      const filtered = await api.get(`/webhook-events?webhook=${webhook.id}&status=failed`)
      assert.equal(filtered.body.total, 0)
      const one = await api.get(`/webhook-events/${list.data[0].id}`)
      assert.equal(one.status, 200)
      assert.deepEqual(one.body, list.data[0])
    })

    it("shows others none of the webhook's deliveries (404 by id) and refuses an unauthenticated caller with 401", async () => {
      const list = await deliveriesOf(webhook.id)
      assert.equal((await deliveriesOf(webhook.id, member.token)).total, 0)
      assert.equal((await deliveriesOf(webhook.id, stranger.token)).total, 0)
      assert.equal(
        (await api.get('/webhook-events', { token: stranger.token })).body.data.some(
          (d: any) => d.webhook === webhook.id
        ),
        false
      )
      assert.equal((await api.get(`/webhook-events/${list.data[0].id}`, { token: member.token })).status, 404)
      assert.equal((await api.get(`/webhook-events?webhook=${webhook.id}`, { token: '' })).status, 401)
    })

    it('refuses unknown query fields and bad values with 400', async () => {
      assert.equal((await api.get(`/webhook-events?webhook=${webhook.id}&leaseOwner=x`)).status, 400)
      assert.equal((await api.get(`/webhook-events?webhook=${webhook.id}&status=lost`)).status, 400)
    })
  })

  describe('PATCH /webhook-events/:id { retry: true }', () => {
    let failed: any
    let receiver: TestWebhookReceiver
    before(async () => {
      const installed = await install({ organization: owner.organization.id, events: '*' })
      receiver = installed.receiver
      receiver.respondWith(() => 500)
      const ping = await api.post('/webhook-events', { webhook: installed.webhook.id, event: 'ping' })
      await waitUntil(
        async () => (await api.get(`/webhook-events/${ping.body.id}`)).body.status === 'failed',
        5000,
        'failed'
      )
      failed = (await api.get(`/webhook-events/${ping.body.id}`)).body
    })

    it('refuses a retry by others (404), without token (401) and with a bad body (400)', async () => {
      assert.equal(
        (await api.patch(`/webhook-events/${failed.id}`, { retry: true }, { token: member.token })).status,
        404
      )
      assert.equal(
        (await api.patch(`/webhook-events/${failed.id}`, { retry: true }, { token: stranger.token })).status,
        404
      )
      assert.equal(
        (await api.patch(`/webhook-events/${failed.id}`, { retry: true }, { token: '' })).status,
        401
      )
      for (const body of [
        { retry: false },
        {},
        { retry: true, status: 'pending' },
        { status: 'delivered' }
      ]) {
        assert.equal(
          (await api.patch(`/webhook-events/${failed.id}`, body)).status,
          400,
          JSON.stringify(body)
        )
      }
      assert.equal((await api.get(`/webhook-events/${failed.id}`)).body.status, 'failed')
    })

    it('queues a failed delivery again, which is then delivered with the same id; a delivered one is a 409', async () => {
      assert.equal(failed.status, 'failed')
      assert.equal(failed.attempts, 2)
      assert.equal(failed.lastResponse.status, 500)
      assert.equal(typeof failed.failedAt, 'number')
      receiver.respondWith(() => 200)

      const res = await api.patch(`/webhook-events/${failed.id}`, { retry: true })
      assert.equal(res.status, 200)
      assert.equal(res.body.status, 'pending')
      assert.equal(res.body.retries, 1)
      await receiver.waitForCount(3)
      assert.deepEqual(
        receiver.received.map((r) => r.body.id),
        [failed.id, failed.id, failed.id]
      )
      await waitUntil(
        async () => (await api.get(`/webhook-events/${failed.id}`)).body.status === 'delivered',
        5000,
        'delivered'
      )
      const again = await api.patch(`/webhook-events/${failed.id}`, { retry: true })
      assert.equal(again.status, 409)
    })
  })
})
