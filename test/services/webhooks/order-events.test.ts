import assert from 'node:assert/strict'
import { restClient, signUp, startServer, type SignedUp, type TestServer } from '../../helpers/app'
import { startWebhookReceiver, type TestWebhookReceiver } from '../../helpers/webhook-receiver'

// Webhooks follow the access rules of orders and inventory: an organization's webhooks receive its orders, stock
// changes and movements; the patient's own webhook receives the orders requested for them; nobody else anything.
describe('webhooks for request orders and inventory', function () {
  this.timeout(30000)
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

  const webhookFor = async (owner: SignedUp, target: Record<string, string>, events: string) => {
    const receiver = await startWebhookReceiver()
    receivers.push(receiver)
    const hook = await restClient(server.url, owner.token).post('/webhook-events', {
      ...target,
      url: receiver.url,
      events
    })
    assert.equal(hook.status, 201, JSON.stringify(hook.body))
    receiver.setSecret(hook.body.secret)
    return receiver
  }

  it('delivers orders, stock changes and movements to the facility, orders to their patient, and nothing to another facility', async () => {
    const events = 'request/orders,inventory-stocks.patch,inventory-stock-movements.create'
    const north = await signUp(server.url, { organization: { name: 'North', type: 'facility' } })
    const south = await signUp(server.url, { organization: { name: 'South', type: 'facility' } })
    const patient = await signUp(server.url)
    const northHook = await webhookFor(north, { organization: north.organization.id }, events)
    const southHook = await webhookFor(south, { organization: south.organization.id }, events)
    const patientHook = await webhookFor(patient, { account: patient.account.id }, 'request/orders')

    const api = restClient(server.url, north.token)
    const room = await api.post('/inventory-stockrooms', { facility: north.organization.id, name: 'Main' })
    const variant = await api.post('/inventory-variants', {
      facility: north.organization.id,
      sku: 'SWAB',
      name: 'Swab',
      initialStock: 5,
      stockroom: room.body.id
    })
    assert.equal(variant.status, 201, JSON.stringify(variant.body))
    const moved = await api.patch(`/inventory-stocks/${variant.body.$stocks[0].id}`, {
      adjust: -2,
      reason: 'used'
    })
    assert.equal(moved.status, 200)
    const order = await api.post('/request/orders', {
      owner: { organization: north.organization.id },
      requestedForType: 'patient',
      requestedFor: patient.account.id,
      items: [{ refType: 'inventory-variant', ref: 'SWAB' }]
    })
    assert.equal(order.status, 201, JSON.stringify(order.body))
    assert.equal(
      (await api.patch(`/request/orders/${order.body.id}`, { changeStatus: 'preparing' })).status,
      200
    )

    // North: two movements (initial stock, withdrawal), the stock patch, the order's create and patch.
    await northHook.waitForCount(5)
    const received = northHook.received.map((r) => r.body.event).sort()
    assert.deepEqual(received, [
      'inventory-stock-movements.create',
      'inventory-stock-movements.create',
      'inventory-stocks.patch',
      'request/orders.create',
      'request/orders.patch'
    ])
    assert.ok(northHook.received.every((r) => r.verified === true))
    assert.equal(
      northHook.received.find((r) => r.body.event === 'inventory-stocks.patch')!.body.payload.quantity,
      3
    )
    assert.equal(
      northHook.received.find((r) => r.body.event === 'inventory-stocks.patch')!.body.payload.pending,
      undefined
    )

    await patientHook.waitForCount(2)
    assert.deepEqual(patientHook.received.map((r) => r.body.event).sort(), [
      'request/orders.create',
      'request/orders.patch'
    ])
    assert.ok(patientHook.received.every((r) => r.body.payload.id === order.body.id))

    // South's own order reaches South: by then ours would have too, had it been sent.
    const theirs = await restClient(server.url, south.token).post('/request/orders', {
      owner: { organization: south.organization.id },
      requestedForType: 'ward',
      requestedFor: 'ward-1',
      items: [{ name: 'Gloves' }]
    })
    assert.equal(theirs.status, 201)
    await southHook.waitForCount(1)
    assert.deepEqual(
      southHook.received.map((r) => r.body.payload.id),
      [theirs.body.id]
    )
  })
})
