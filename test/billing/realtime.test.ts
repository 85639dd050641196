// Realtime: billing events reach the members of the document's facility over Socket.IO, and nobody else.
import assert from 'node:assert/strict'
import {
  recordEvents,
  restClient,
  socketClient,
  startServer,
  waitUntil,
  type TestServer
} from '../helpers/app'
import { invoiceWithItems, pay, setupFacility, type FacilityFixture } from '../helpers/billing'

describe('billing realtime events', () => {
  let server: TestServer
  let facility: FacilityFixture
  const sockets: ReturnType<typeof socketClient>[] = []

  before(async () => {
    server = await startServer()
    facility = await setupFacility(server.url)
  })
  after(async () => {
    for (const socket of sockets) socket.close()
    await server.close()
  })

  const connect = async (token: string, organization: string) => {
    const socket = socketClient(server.url)
    sockets.push(socket)
    await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
    // Channels are joined right after login; wait until this connection is in its organization's channel.
    await waitUntil(
      () =>
        server.app.channel(`organizations/${organization}`).connections.length > 0 &&
        server.app.channel('authenticated').connections.length >= sockets.length,
      5000,
      'channels'
    )
    const events: Record<string, { event: string; data: any }[]> = {}
    for (const path of ['billing-invoices', 'billing-items', 'billing-payments', 'medical-encounters'])
      events[path] = recordEvents(socket.client, path)
    return events
  }

  it('sends item, payment and invoice-total events to members of the facility and none to others', async () => {
    const member = await connect(facility.member.token, facility.id)
    const stranger = await connect(facility.stranger.token, facility.strangerFacility)

    const { invoice, items } = await invoiceWithItems(server.url, facility, [40])
    const payment = await pay(server.url, facility, items[0].id, 15)
    await waitUntil(
      () =>
        member['billing-payments'].length > 0 && member['billing-invoices'].some((e) => e.data.paid === 15),
      5000,
      'member events'
    )

    assert.deepEqual(
      member['billing-payments'].map((e) => [e.event, e.data.id]),
      [['created', payment.id]]
    )
    assert.ok(member['billing-items'].some((e) => e.event === 'created' && e.data.id === items[0].id))
    const paidEvent = member['billing-items'].find((e) => e.event === 'patched' && e.data.paid === 15)
    assert.ok(paidEvent, 'item patched with its new paid amount')
    for (const internal of ['reserved', 'pending', 'amountMinor'])
      assert.equal(internal in paidEvent.data, false)
    const totals = member['billing-invoices']
      .filter((e) => e.data.id === invoice.id)
      .map((e) => [e.event, e.data.total, e.data.paid])
    assert.deepEqual(totals.at(-1), ['patched', 40, 15])

    // A marker event the stranger may see proves its socket is live before asserting it saw nothing of ours.
    await restClient(server.url, facility.stranger.token).post('/billing-invoices', {
      facility: facility.strangerFacility,
      type: 'other',
      subject: 'x',
      subjectType: 'patient'
    })
    await waitUntil(() => stranger['billing-invoices'].length > 0, 5000, 'stranger marker event')
    assert.ok(stranger['billing-invoices'].every((e) => e.data.facility === facility.strangerFacility))
    assert.deepEqual([stranger['billing-items'].length, stranger['billing-payments'].length], [0, 0])
  })

  it('announces the removal of an invoice, its items and its payments to members', async () => {
    const member = await connect(facility.member.token, facility.id)
    const { invoice, items } = await invoiceWithItems(server.url, facility, [10, 20])
    const payment = await pay(server.url, facility, items[1].id, 5)
    assert.equal(
      (await restClient(server.url, facility.biller.token).delete(`/billing-invoices/${invoice.id}`)).status,
      200
    )
    await waitUntil(
      () => member['billing-invoices'].some((e) => e.event === 'removed' && e.data.id === invoice.id),
      5000,
      'invoice removed'
    )
    const removedItems = member['billing-items']
      .filter((e) => e.event === 'removed')
      .map((e) => e.data.id)
      .sort()
    assert.deepEqual(removedItems, items.map((i) => i.id).sort())
    assert.ok(member['billing-payments'].some((e) => e.event === 'removed' && e.data.id === payment.id))
  })

  it('answers Socket.IO calls with the same rules: a payment over the balance is a Conflict, a stranger gets NotFound', async () => {
    await connect(facility.biller.token, facility.id)
    const biller = sockets.at(-1)!.client
    const { invoice, items } = await invoiceWithItems(server.url, facility, [25])
    const payment = await biller
      .service('billing-payments')
      .create({ item: items[0].id, type: 'payment', paymentMethod: 'card', amount: 20 })
    assert.equal(payment.amount, 20)
    await assert.rejects(
      biller
        .service('billing-payments')
        .create({ item: items[0].id, type: 'payment', paymentMethod: 'card', amount: 6 }),
      (error: any) => {
        assert.equal(error.name, 'Conflict')
        assert.equal(error.data.remainingBalance, 5)
        return true
      }
    )
    await assert.rejects(
      biller
        .service('billing-payments')
        .create({ item: items[0].id, type: 'payment', paymentMethod: 'card', amount: -1 }),
      { name: 'BadRequest' }
    )
    await connect(facility.stranger.token, facility.strangerFacility)
    const stranger = sockets.at(-1)!.client
    await assert.rejects(stranger.service('billing-invoices').get(invoice.id), { name: 'NotFound' })
    await assert.rejects(stranger.service('billing-items').patch(items[0].id, { quantity: 2 }), {
      name: 'NotFound'
    })
  })
})
