// The webhooks a write goes to are decided at that write: a webhook registered, deactivated, reactivated,
// re-subscribed or removed is taken into account by the very next create (the embedded engine keeps the listeners
// of each event in memory while the webhooks are unchanged; MongoDB reads them at every write).
import assert from 'node:assert/strict'
import { restClient, signUp, startServer, type TestServer } from '../../helpers/app'
import { startWebhookReceiver, type TestWebhookReceiver } from '../../helpers/webhook-receiver'
import { validRecords } from '../../fixtures/medical-records'

describe('webhooks: the listeners of the very next write', function () {
  this.timeout(30000)
  let server: TestServer
  let receiver: TestWebhookReceiver
  before(async () => {
    server = await startServer({
      webhooks: { allowPrivate: true, retryDelaysMs: [200], timeoutMs: 2000, pollIntervalMs: 50 }
    })
    receiver = await startWebhookReceiver()
  })
  after(async () => {
    await server.close()
    await receiver.close()
  })

  it('sees each registration, deactivation, change of events and removal at the next create', async () => {
    const owner = await signUp(server.url, { organization: { name: 'Listeners', type: 'facility' } })
    const api = restClient(server.url, owner.token)
    const facility = owner.organization.id
    const create = async () => {
      const res = await api.post('/medical-records', {
        ...validRecords.allergy,
        facility,
        patient: owner.account.id,
        permissions: [{ organization: facility, write: true }]
      })
      // (a record's create is answered 200, see the medical records service)
      assert.equal(res.status, 200, JSON.stringify(res.body))
    }
    const deliveries = async (webhook: string) => {
      const res = await api.get(`/webhook-events?webhook=${webhook}`)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return res.body.total as number
    }

    // (a record goes to the account webhooks of those who may read it: here its creator's own)
    // Nobody listens yet: the record goes nowhere.
    await create()
    const registered = await api.post('/webhook-events', {
      account: owner.account.id,
      url: receiver.url,
      events: 'medical-records.create'
    })
    assert.equal(registered.status, 201, JSON.stringify(registered.body))
    const hook = registered.body.id as string
    await create()
    assert.equal(await deliveries(hook), 1)

    assert.equal((await api.patch(`/webhooks/${hook}`, { active: false })).status, 200)
    await create()
    assert.equal(await deliveries(hook), 1)
    assert.equal((await api.patch(`/webhooks/${hook}`, { active: true })).status, 200)
    await create()
    assert.equal(await deliveries(hook), 2)

    assert.equal((await api.patch(`/webhooks/${hook}`, { events: 'medical-records.patch' })).status, 200)
    await create()
    assert.equal(await deliveries(hook), 2)
    assert.equal((await api.patch(`/webhooks/${hook}`, { events: 'medical-records' })).status, 200)
    await create()
    assert.equal(await deliveries(hook), 3)

    // A second webhook, then the first removed: the next create goes to the second only.
    const second = await api.post('/webhook-events', {
      account: owner.account.id,
      url: receiver.url,
      events: '*'
    })
    assert.equal(second.status, 201, JSON.stringify(second.body))
    assert.equal((await api.delete(`/webhooks/${hook}`)).status, 200)
    await create()
    assert.equal(await deliveries(hook), 0)
    assert.equal(await deliveries(second.body.id), 1)
  })
})
