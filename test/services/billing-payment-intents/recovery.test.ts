// A capture interrupted by a crash (the intent left `capturing`, its invoice payment recorded, the gateway never
// asked) is undone when the server starts again on the same data: the payment is voided, the intent is
// approved again and can be captured, recording its payment once.
import assert from 'node:assert/strict'
import { http, startServer, type TestServer } from '../../helpers/app'
import { invoiceWithItems, pay, setupFacility, type FacilityFixture } from '../../helpers/billing'
import { answerCheckout } from '../../helpers/gateways'

describe('billing-payment-intents recovery of interrupted captures', function () {
  this.timeout(30000)
  let server: TestServer
  let facility: FacilityFixture

  after(() => server?.close())

  it('voids the payments of a capture interrupted before the gateway answered and approves the intent again', async () => {
    server = await startServer()
    facility = await setupFacility(server.url)
    const { invoice, items } = await invoiceWithItems(server.url, facility, [50])
    const intent = (
      await http(server.url, 'POST', '/billing-payment-intents', {
        token: facility.biller.token,
        body: {
          gatewayType: 'sandbox-card',
          currency: 'USD',
          facility: facility.id,
          invoice: invoice.id,
          items: [{ name: 'Invoice', amountPerItem: 30, quantity: 1 }]
        }
      })
    ).body
    await answerCheckout(intent.checkout.approvalURL, 'approve')
    // The state a crash after step 3 of a capture leaves: capturing, the invoice payment recorded.
    const store = server.app.service('billing-payment-intents' as any) as any // `any`: internal store calls to stage the crash
    await store._patch(intent.id, { status: 'capturing', capturingAt: Date.now() - 1000 })
    await pay(server.url, facility, items[0].id, 30, {
      paymentMethod: 'card',
      reference: `payment intent ${intent.id}`
    })
    const dataDir = server.dataDir
    // The same data on restart (MongoDB: the same database), and on MongoDB — where other instances may be capturing —
    // the interrupted capture counts as stale at once.
    const mongodb = server.app.get('mongodb')
    const billing = { ...server.app.get('billing'), staleAfterMs: 0 }
    await server.close({ keep: true })

    server = await startServer({ dataDir, mongodb, billing })
    const after = await http(server.url, 'GET', `/billing-payment-intents/${intent.id}`, {
      token: facility.biller.token
    })
    assert.equal(after.body.status, 'approved')
    assert.equal(
      (await http(server.url, 'GET', `/billing-items/${items[0].id}`, { token: facility.biller.token })).body
        .balance,
      50
    )
    const captured = await http(server.url, 'PATCH', `/billing-payment-intents/${intent.id}`, {
      token: facility.biller.token,
      body: { capture: true }
    })
    assert.equal(captured.body.status, 'captured', JSON.stringify(captured.body))
    const payments = (
      await http(server.url, 'GET', `/billing-payments?invoice=${invoice.id}`, {
        token: facility.biller.token
      })
    ).body.data
    assert.deepEqual(payments.map((p: any) => p.status).sort(), ['draft', 'voided'])
    assert.equal(
      (await http(server.url, 'GET', `/billing-items/${items[0].id}`, { token: facility.biller.token })).body
        .balance,
      20
    )
  })
})
