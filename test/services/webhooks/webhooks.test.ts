import assert from 'node:assert/strict'
import { restClient, signUp, socketClient, startServer, waitUntil, type TestServer } from '../../helpers/app'
import { startWebhookReceiver, type TestWebhookReceiver } from '../../helpers/webhook-receiver'

const settings = (extra: Record<string, unknown> = {}) => ({
  webhooks: {
    allowPrivate: true,
    retryDelaysMs: [200, 200],
    timeoutMs: 2000,
    pollIntervalMs: 50,
    leaseMarginMs: 500,
    ...extra
  }
})

describe('webhooks: registration and management', () => {
  let server: TestServer
  let receiver: TestWebhookReceiver
  let owner: Awaited<ReturnType<typeof signUp>>
  let member: Awaited<ReturnType<typeof signUp>>
  let stranger: Awaited<ReturnType<typeof signUp>>
  let api: ReturnType<typeof restClient>

  before(async () => {
    server = await startServer(settings())
    receiver = await startWebhookReceiver()
    owner = await signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } })
    member = await signUp(server.url)
    stranger = await signUp(server.url, { organization: { name: 'Clinic B', type: 'facility' } })
    api = restClient(server.url, owner.token)
    const added = await api.post('/organization-members', {
      organization: owner.organization.id,
      uid: member.account.id
    })
    assert.equal(added.status, 201)
  })
  after(async () => {
    await server.close()
    await receiver.close()
  })

  const register = (body: Record<string, unknown>, token = owner.token) =>
    api.post('/webhook-events', body, { token })

  describe('POST /webhook-events (register)', () => {
    it('lets a superadmin install a webhook on the organization and shows its signing secret once', async () => {
      const res = await register({
        organization: owner.organization.id,
        active: true,
        url: receiver.url,
        events: 'organizations.patch'
      })
      assert.equal(res.status, 201)
      assert.equal(res.body.organization, owner.organization.id)
      assert.equal(res.body.url, receiver.url)
      assert.equal(res.body.events, 'organizations.patch')
      assert.equal(res.body.active, true)
      assert.equal(res.body.createdBy, owner.account.id)
      assert.match(res.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/)
      assert.ok(Buffer.from(res.body.secret.slice(6), 'base64').length >= 24)
      for (const internal of ['topics', 'dueAt', 'queueVersion']) assert.equal(res.body[internal], undefined)

      const read = await api.get(`/webhooks/${res.body.id}`)
      assert.equal(read.status, 200)
      assert.equal(read.body.secret, undefined)
    })

    it('lets an account install a webhook on itself, active by default', async () => {
      const res = await register(
        { account: member.account.id, url: receiver.url, events: 'accounts' },
        member.token
      )
      assert.equal(res.status, 201)
      assert.equal(res.body.account, member.account.id)
      assert.equal(res.body.organization, undefined)
      assert.equal(res.body.active, true)
      assert.equal(res.body.events, 'accounts')
    })

    it('accepts every pattern form: *, <service>, <service>.* and comma-separated <service>.<method>', async () => {
      for (const events of [
        '*',
        'organization-members',
        'organizations.*',
        ' organization-members.create , organizations.patch,organizations.remove '
      ]) {
        const res = await register({ organization: owner.organization.id, url: receiver.url, events })
        assert.equal(res.status, 201, JSON.stringify(res.body))
        assert.equal(
          res.body.events,
          events
            .split(',')
            .map((p) => p.trim())
            .join(',')
        )
      }
    })

    it('refuses an unauthenticated caller with 401', async () => {
      const res = await api.post(
        '/webhook-events',
        { organization: owner.organization.id, url: receiver.url, events: '*' },
        { token: '' }
      )
      assert.equal(res.status, 401)
    })

    it('refuses a member who is not a superadmin (403), and a superadmin of another organization (404: it cannot read it)', async () => {
      const body = { organization: owner.organization.id, url: receiver.url, events: '*' }
      assert.equal((await register(body, member.token)).status, 403)
      assert.equal((await register(body, stranger.token)).status, 404)
    })

    it("refuses installing a webhook on someone else's account with 404 (another account cannot be read)", async () => {
      const res = await register({ account: owner.account.id, url: receiver.url, events: '*' }, member.token)
      assert.equal(res.status, 404)
    })

    it('refuses unknown services and methods with a 400 that names each of them', async () => {
      const res = await register({
        organization: owner.organization.id,
        url: receiver.url,
        events: 'organizations.create,prescriptions.create,organizations.explode,webhooks.create'
      })
      assert.equal(res.status, 400)
      const messages = res.body.errors
        .filter((e: any) => e.field === 'events')
        .map((e: any) => e.message)
        .join(' | ')
      assert.match(messages, /unknown service 'prescriptions'/)
      assert.match(messages, /unknown method 'explode' of 'organizations'/)
      assert.match(messages, /unknown service 'webhooks'/)
      assert.doesNotMatch(messages, /organizations\.create/)
    })

    it('refuses a method the service does not offer, ping, and empty or malformed patterns with 400', async () => {
      for (const events of ['organizations.update', 'ping', ' , ', 'organi zations']) {
        const res = await register({ organization: owner.organization.id, url: receiver.url, events })
        assert.equal(res.status, 400, events)
        assert.ok(
          res.body.errors.some((e: any) => e.field === 'events'),
          events
        )
      }
    })

    it('refuses non-http(s) and malformed URLs with 400 naming url', async () => {
      for (const url of ['ftp://example.com/hook', 'javascript:alert(1)', 'not a url', '/relative']) {
        const res = await register({ organization: owner.organization.id, url, events: '*' })
        assert.equal(res.status, 400, url)
        assert.deepEqual(
          res.body.errors.map((e: any) => e.field),
          ['url']
        )
      }
    })

    it('refuses a body with neither or both owners, missing or unknown fields with 400 naming them', async () => {
      const neither = await register({ url: receiver.url, events: '*' })
      assert.equal(neither.status, 400)
      assert.deepEqual(neither.body.errors.map((e: any) => e.field).sort(), ['account', 'organization'])
      const both = await register({
        organization: owner.organization.id,
        account: owner.account.id,
        url: receiver.url,
        events: '*'
      })
      assert.equal(both.status, 400)
      const missing = await register({ organization: owner.organization.id })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body.errors.map((e: any) => e.field).sort(), ['events', 'url'])
      const extra = await register({
        organization: owner.organization.id,
        url: receiver.url,
        events: '*',
        secret: 'whsec_mine'
      })
      assert.equal(extra.status, 400)
      assert.deepEqual(
        extra.body.errors.map((e: any) => e.field),
        ['secret']
      )
      const wrongType = await register({
        organization: owner.organization.id,
        url: receiver.url,
        events: '*',
        active: 'yes'
      })
      assert.equal(wrongType.status, 400)
      assert.deepEqual(
        wrongType.body.errors.map((e: any) => e.field),
        ['active']
      )
    })

    it('is not offered at POST /webhooks', async () => {
      const res = await api.post('/webhooks', {
        organization: owner.organization.id,
        url: receiver.url,
        events: '*'
      })
      assert.equal(res.status, 405)
    })
  })

  describe('private addresses', () => {
    let strict: TestServer
    let admin: Awaited<ReturnType<typeof signUp>>
    before(async () => {
      strict = await startServer(settings({ allowPrivate: false }))
      admin = await signUp(strict.url, { organization: { name: 'Strict clinic', type: 'facility' } })
    })
    after(() => strict.close())

    it('refuses loopback, private and link-local URLs with 400 when private addresses are not allowed', async () => {
      const client = restClient(strict.url, admin.token)
      for (const url of [
        'http://127.0.0.1:9/hook',
        'http://localhost/hook',
        'http://10.1.2.3/hook',
        'http://192.168.0.10/hook',
        'http://169.254.169.254/latest',
        'http://[::1]/hook',
        'http://[::ffff:127.0.0.1]/hook'
      ]) {
        const res = await client.post('/webhook-events', {
          organization: admin.organization.id,
          url,
          events: '*'
        })
        assert.equal(res.status, 400, url)
        assert.equal(res.body.errors[0].field, 'url')
        assert.match(res.body.errors[0].message, /private/)
      }
    })

    it('says outside production how a developer allows private targets (WEBHOOK_ALLOW_PRIVATE=true)', async () => {
      const res = await restClient(strict.url, admin.token).post('/webhook-events', {
        organization: admin.organization.id,
        url: 'http://127.0.0.1:9/hook',
        events: '*'
      })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body.errors, [
        {
          field: 'url',
          message:
            'points to a private, loopback or link-local address (to allow private targets in development, start the server with WEBHOOK_ALLOW_PRIVATE=true)'
        }
      ])
    })

    it('accepts a public address, and refuses changing it to a private one', async () => {
      const client = restClient(strict.url, admin.token)
      const res = await client.post('/webhook-events', {
        organization: admin.organization.id,
        url: 'https://93.184.216.34/hook',
        events: '*'
      })
      assert.equal(res.status, 201)
      const patched = await client.patch(`/webhooks/${res.body.id}`, { url: 'http://127.0.0.1/hook' })
      assert.equal(patched.status, 400)
      assert.match(patched.body.errors[0].message, /private/)
    })
  })

  describe('/webhooks', () => {
    let hook: any
    before(async () => {
      hook = (
        await register({
          organization: owner.organization.id,
          url: receiver.url,
          events: 'organization-members'
        })
      ).body
    })

    it('lists the organization webhooks for its superadmins, never with secrets', async () => {
      const res = await api.get(`/webhooks?organization=${owner.organization.id}`)
      assert.equal(res.status, 200)
      assert.ok(res.body.total >= 1)
      assert.ok(res.body.data.some((w: any) => w.id === hook.id))
      for (const w of res.body.data) {
        assert.equal(w.organization, owner.organization.id)
        assert.equal(w.secret, undefined)
        assert.equal(w.topics, undefined)
      }
    })

    it("shows other callers none of the organization's webhooks (members, other organizations, 401 without token)", async () => {
      const asMember = await api.get(`/webhooks?organization=${owner.organization.id}`, {
        token: member.token
      })
      assert.equal(asMember.status, 200)
      assert.equal(asMember.body.total, 0)
      const asStranger = await api.get(`/webhooks?organization=${owner.organization.id}`, {
        token: stranger.token
      })
      assert.equal(asStranger.body.total, 0)
      assert.equal((await api.get(`/webhooks/${hook.id}`, { token: member.token })).status, 404)
      assert.equal((await api.get(`/webhooks/${hook.id}`, { token: stranger.token })).status, 404)
      assert.equal((await api.get('/webhooks', { token: '' })).status, 401)
    })

    it('refuses unknown query fields with 400', async () => {
      const res = await api.get('/webhooks?secret=x')
      assert.equal(res.status, 400)
    })

    it('lets the owner change url, events and active, checking them as at creation', async () => {
      const res = await api.patch(`/webhooks/${hook.id}`, {
        events: 'organizations.patch,organization-members.remove',
        url: `${receiver.url}?v=2`
      })
      assert.equal(res.status, 200)
      assert.equal(res.body.events, 'organizations.patch,organization-members.remove')
      assert.equal(res.body.url, `${receiver.url}?v=2`)
      assert.equal(res.body.secret, undefined)

      const off = await api.patch(`/webhooks/${hook.id}`, { active: false })
      assert.equal(off.body.active, false)
      assert.equal(off.body.deactivatedReason, 'deactivated by its owner')
      const on = await api.patch(`/webhooks/${hook.id}`, { active: true })
      assert.equal(on.body.active, true)
      assert.equal(on.body.deactivatedReason, undefined)
    })

    it('refuses bad patches with 400 naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ events: 'nope.create' }, 'events'],
        [{ url: 'gopher://x' }, 'url'],
        [{ active: 'no' }, 'active'],
        [{ secret: 'whsec_x' }, 'secret'],
        [{ organization: stranger.organization.id }, 'organization']
      ]
      for (const [body, field] of cases) {
        const res = await api.patch(`/webhooks/${hook.id}`, body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.ok(
          res.body.errors.some((e: any) => e.field === field),
          JSON.stringify(res.body)
        )
      }
      assert.equal((await api.patch(`/webhooks/${hook.id}`, {})).status, 400)
    })

    it("refuses other callers' patches and removals with 404, and 401 without token", async () => {
      assert.equal(
        (await api.patch(`/webhooks/${hook.id}`, { active: false }, { token: member.token })).status,
        404
      )
      assert.equal(
        (await api.patch(`/webhooks/${hook.id}`, { active: false }, { token: stranger.token })).status,
        404
      )
      assert.equal((await api.delete(`/webhooks/${hook.id}`, { token: stranger.token })).status, 404)
      assert.equal((await api.delete(`/webhooks/${hook.id}`, { token: '' })).status, 401)
      assert.equal((await api.get(`/webhooks/${hook.id}`)).body.active, true)
    })

    it('removes a webhook with its deliveries', async () => {
      const doomed = (await register({ organization: owner.organization.id, url: receiver.url, events: '*' }))
        .body
      const ping = await api.post('/webhook-events', { webhook: doomed.id, event: 'ping' })
      assert.equal(ping.status, 201)
      const removed = await api.delete(`/webhooks/${doomed.id}`)
      assert.equal(removed.status, 200)
      assert.equal(removed.body.secret, undefined)
      assert.equal((await api.get(`/webhooks/${doomed.id}`)).status, 404)
      assert.equal((await api.get(`/webhook-events?webhook=${doomed.id}`)).body.total, 0)
      assert.equal((await api.get(`/webhook-events/${ping.body.id}`)).status, 404)
    })
  })

  describe('secrets in events', () => {
    it('never sends the secret in realtime events of webhooks and webhook events', async () => {
      const { client, close } = socketClient(server.url)
      try {
        await client.authenticate({ strategy: 'jwt', accessToken: owner.token })
        const seen: any[] = []
        for (const path of ['webhooks', 'webhook-events'] as const) {
          for (const event of ['created', 'patched', 'removed'])
            client.service(path).on(event, (data: any) => seen.push({ path, event, data }))
        }
        // The connection joins its channels right after login: wait until an event of the organization arrives.
        let joined = false
        client.service('organizations').on('patched', () => (joined = true))
        await waitUntil(
          async () => {
            await api.patch(`/organizations/${owner.organization.id}`, { description: 'channels joined' })
            return joined
          },
          5000,
          'channels joined'
        )
        const created = await register({
          organization: owner.organization.id,
          url: receiver.url,
          events: '*'
        })
        assert.ok(created.body.secret)
        await api.post('/webhook-events', { webhook: created.body.id, event: 'ping' })
        await api.patch(`/webhooks/${created.body.id}`, { events: 'organizations' })
        await api.delete(`/webhooks/${created.body.id}`)
        await waitUntil(() => seen.filter((e) => e.path === 'webhooks').length >= 3, 5000, 'webhook events')
        await waitUntil(() => seen.some((e) => e.path === 'webhook-events'), 5000, 'ping event')
        assert.deepEqual(
          seen.filter((e) => e.path === 'webhooks').map((e) => e.event),
          ['created', 'patched', 'removed']
        )
        // A registration is announced once, by /webhooks; /webhook-events announces the ping only.
        assert.deepEqual(
          seen.filter((e) => e.path === 'webhook-events').map((e) => e.data.event),
          ['ping']
        )
        const text = JSON.stringify(seen)
        assert.ok(!text.includes(created.body.secret))
        assert.ok(!text.includes('whsec_'))
      } finally {
        close()
      }
    })
  })
})
