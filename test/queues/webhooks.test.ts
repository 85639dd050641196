// Queue items reach the facility's webhooks as queue-items.* events (an item added, then called by $callNext), as
// every service's writes do, without the appointment key, and never another organization's webhook.
import assert from 'node:assert/strict'
import { restClient, waitUntil, type TestServer } from '../helpers/app'
import { startWebhookClinic, type ClinicFixture, type WebhookClinic } from '../helpers/appointments'
import type { TestWebhookReceiver } from '../helpers/webhook-receiver'
import { addItem, createQueue } from './fixtures'

describe('queue-items webhooks', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  let ours: TestWebhookReceiver
  let theirs: TestWebhookReceiver

  let env: WebhookClinic

  before(async () => {
    env = await startWebhookClinic('queue-items')
    ;({ server, clinic, ours, theirs } = env)
  })
  after(() => env?.close())

  it('delivers the item added and its call to the facility webhook only', async () => {
    const queue = await createQueue(server.url, clinic)
    const item = await addItem(server.url, clinic, queue.id, clinic.patient.account.id)
    const called = await restClient(server.url, clinic.scheduler.token).patch(`/queues/${queue.id}`, {
      $callNext: true
    })
    assert.equal(called.status, 200, JSON.stringify(called.body))
    await waitUntil(() => ours.received.length >= 2, 10000, 'two deliveries')
    const events = ours.received.map((r) => r.body.event)
    assert.deepEqual(events.sort(), ['queue-items.create', 'queue-items.patch'])
    const bodies = JSON.stringify(ours.received.map((r) => r.body))
    assert.ok(bodies.includes(item.id))
    assert.ok(!bodies.includes('appointmentKey'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(theirs.received.length, 0)
  })
})
