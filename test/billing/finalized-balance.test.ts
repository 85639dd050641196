// The balance of a finalized bill, as the console collects it over Socket.IO: an encounter's bill finalized with a
// payment already recorded; the connection receives the invoice's and items' current statuses, payments keep
// their own status (`draft` until finalized themselves, voidable), the remaining balance is accepted after
// finalize, and a payment beyond it is a 409 carrying `remainingBalance` as a number (the console words it).
import assert from 'node:assert/strict'
import { refusal, socketClient, waitUntil, type TestServer } from '../helpers/app'
import { startFacilityServer, type FacilityFixture } from '../helpers/billing'

describe('collecting the balance of a finalized bill (Socket.IO)', function () {
  this.timeout(30000)
  let server: TestServer
  let facility: FacilityFixture
  let connection: ReturnType<typeof socketClient>

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    connection = socketClient(server.url)
    await connection.client.authenticate({ strategy: 'jwt', accessToken: facility.biller.token })
  })
  after(async () => {
    connection?.close()
    await server?.close()
  })

  it('finalizes with a payment recorded, then accepts exactly the remaining balance', async () => {
    const { client } = connection
    const encounter = await client.service('medical-encounters').create({
      facility: facility.id,
      patient: facility.member.account.id,
      invoice: true,
      reason: 'Check-up'
    })
    assert.ok(encounter.invoice)
    const invoiceId = encounter.invoice
    const item = await client
      .service('billing-items')
      .create({ invoice: invoiceId, type: 'custom', name: 'Consultation', price: 49 })
    const first = await client
      .service('billing-payments')
      .create({ item: item.id, type: 'payment', paymentMethod: 'cash', amount: 20 })
    assert.equal(first.status, 'draft')

    const seen: Record<string, string> = {}
    client.service('billing-invoices').on('patched', (doc: { id: string; status: string }) => {
      if (doc.id === invoiceId) seen.invoice = doc.status
    })
    client.service('billing-items').on('patched', (doc: { id: string; status: string }) => {
      if (doc.id === item.id) seen.item = doc.status
    })
    await client.service('medical-encounters').patch(encounter.id, { finalize: true })
    assert.equal((await client.service('medical-encounters').get(encounter.id)).status, 'finalized')
    const invoice = await client.service('billing-invoices').get(invoiceId)
    assert.deepEqual(
      [invoice.status, invoice.total, invoice.paid, invoice.balance],
      ['finalized', 49, 20, 29]
    )
    assert.equal((await client.service('billing-items').get(item.id)).status, 'finalized')
    // The events the console follows carry the new statuses.
    await waitUntil(
      () => seen.invoice === 'finalized' && seen.item === 'finalized',
      5000,
      'the patched events'
    )
    assert.deepEqual(seen, { invoice: 'finalized', item: 'finalized' })
    // A payment keeps its own status: finalizing the bill does not confirm its payments.
    const payments = await client.service('billing-payments').find({ query: { invoice: invoiceId } })
    assert.deepEqual(
      payments.data.map((p) => p.status),
      ['draft']
    )

    const tooMuch = await refusal(
      client
        .service('billing-payments')
        .create({ item: item.id, type: 'payment', paymentMethod: 'card', amount: 30 })
    )
    assert.equal(tooMuch.code, 409)
    assert.equal(tooMuch.data.remainingBalance, 29)

    const rest = await client
      .service('billing-payments')
      .create({ item: item.id, type: 'payment', paymentMethod: 'card', amount: 29 })
    assert.equal(rest.status, 'draft')
    const settled = await client.service('billing-invoices').get(invoiceId)
    assert.deepEqual([settled.status, settled.paid, settled.balance], ['finalized', 49, 0])
  })
})
