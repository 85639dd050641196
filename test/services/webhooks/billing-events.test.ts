import assert from 'node:assert/strict'
import { restClient, signUp, startServer, sleep, type TestServer } from '../../helpers/app'
import { startWebhookReceiver, type TestWebhookReceiver } from '../../helpers/webhook-receiver'

// Organization webhooks receive the billing documents of their facility, and nothing of another facility's.
describe('webhooks for medical encounters and billing', () => {
  let server: TestServer
  const receivers: TestWebhookReceiver[] = []
  before(async () => {
    server = await startServer({
      webhooks: {
        allowPrivate: true,
        retryDelaysMs: [200],
        timeoutMs: 2000,
        pollIntervalMs: 50,
        leaseMarginMs: 30000
      }
    })
  })
  after(async () => {
    await Promise.all(receivers.map((r) => r.close()))
    await server.close()
  })

  const clinicWithWebhook = async (name: string, events: string) => {
    const owner = await signUp(server.url, { organization: { name, type: 'facility' } })
    const receiver = await startWebhookReceiver()
    receivers.push(receiver)
    const api = restClient(server.url, owner.token)
    const hook = await api.post('/webhook-events', {
      organization: owner.organization.id,
      url: receiver.url,
      events
    })
    assert.equal(hook.status, 201, JSON.stringify(hook.body))
    receiver.setSecret(hook.body.secret)
    return { owner, api, receiver, facility: owner.organization.id }
  }

  it('delivers an encounter created with its invoice, then finalized, signed, to its facility only', async () => {
    const north = await clinicWithWebhook('North', 'medical-encounters,billing-invoices.create')
    const south = await clinicWithWebhook('South', 'medical-encounters,billing-invoices')
    const encounter = await north.api.post('/medical-encounters', {
      facility: north.facility,
      patient: 'patient-1',
      type: 'outpatient',
      invoice: true
    })
    assert.equal(encounter.status, 201, JSON.stringify(encounter.body))
    const finalized = await north.api.patch(`/medical-encounters/${encounter.body.id}`, { finalize: true })
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body))

    await north.receiver.waitForCount(3)
    const events = north.receiver.received.map((r) => r.body.event)
    assert.deepEqual([...events].sort(), [
      'billing-invoices.create',
      'medical-encounters.create',
      'medical-encounters.patch'
    ])
    assert.ok(north.receiver.received.every((r) => r.verified === true))
    const created = north.receiver.received.find((r) => r.body.event === 'medical-encounters.create')!
    assert.equal(created.body.payload.id, encounter.body.id)
    assert.equal(created.body.payload.facility, north.facility)
    const patched = north.receiver.received.find((r) => r.body.event === 'medical-encounters.patch')!
    assert.equal(patched.body.payload.status, 'finalized')

    await sleep(300)
    assert.equal(south.receiver.received.length, 0, 'another facility receives nothing')
  })
})
