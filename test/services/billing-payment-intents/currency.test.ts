// One currency per invoice: a payment intent paying an invoice is in the invoice's currency. Refused at create
// (400 naming currency); and an intent that reaches capture in another currency anyway (written before the rule,
// or by another writer straight into the store) is refused there too (409) before any money moves — no payment
// recorded, nothing captured at the gateway (a local PayPal API that counts captures).
import assert from 'node:assert/strict'
import { http, restClient, type TestServer } from '../../helpers/app'
import { fieldsOf, startFacilityServer, type FacilityFixture } from '../../helpers/billing'
import { startPayPalServer, type PayPalServer } from '../../helpers/paypal-server'

describe('billing-payment-intents: the invoice’s currency', function () {
  this.timeout(30000)
  let paypal: PayPalServer
  let server: TestServer
  let facility: FacilityFixture
  let url: string

  before(async () => {
    paypal = await startPayPalServer()
    ;({ server, facility } = await startFacilityServer({
      gateways: {
        enabled: ['sandbox', 'paypal'],
        paypal: {
          clientId: paypal.clientId,
          clientSecret: paypal.clientSecret,
          baseURL: paypal.url,
          timeoutMs: 2000
        }
      }
    }))
    url = server.url
  })
  after(async () => {
    await server?.close()
    await paypal?.close()
  })

  /** A draft invoice in `currency` with one custom line of `price`. */
  const invoiceIn = async (currency: string, price: number) => {
    const api = restClient(url, facility.biller.token)
    const invoice = await api.post('/billing-invoices', {
      facility: facility.id,
      type: 'walk-in',
      subject: facility.member.account.id,
      subjectType: 'patient',
      currency
    })
    assert.equal(invoice.status, 201, JSON.stringify(invoice.body))
    const item = await api.post('/billing-items', {
      invoice: invoice.body.id,
      type: 'custom',
      name: 'Consultation',
      price
    })
    assert.equal(item.status, 201, JSON.stringify(item.body))
    return { invoice: invoice.body, item: item.body }
  }
  const createIntent = (invoice: string, currency: string, gatewayType = 'paypal-paypal') =>
    http(url, 'POST', '/billing-payment-intents', {
      token: facility.biller.token,
      body: {
        gatewayType,
        currency,
        facility: facility.id,
        invoice,
        gatewayReturnURL: 'http://127.0.0.1:9/paid',
        items: [{ name: 'Invoice payment', amountPerItem: 30, quantity: 1 }]
      }
    })
  const paymentsOf = async (invoice: string) =>
    (await http(url, 'GET', `/billing-payments?invoice=${invoice}`, { token: facility.biller.token })).body
      .data

  it('refuses a USD intent for an EUR invoice at create (400 naming currency), creating nothing at the gateway', async () => {
    const { invoice } = await invoiceIn('EUR', 30)
    const orders = paypal.orders.size
    for (const gatewayType of ['paypal-paypal', 'sandbox-card']) {
      const res = await createIntent(invoice.id, 'USD', gatewayType)
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.deepEqual(fieldsOf(res.body), ['currency'])
      assert.match(res.body.message, /EUR/)
    }
    assert.equal(paypal.orders.size, orders)
    const list = await http(url, 'GET', `/billing-payment-intents?invoice=${invoice.id}&$limit=0`, {
      token: facility.biller.token
    })
    assert.equal(list.body.total, 0)
  })

  it('accepts an intent in the invoice’s currency and records its capture as a payment in that currency', async () => {
    const { invoice, item } = await invoiceIn('EUR', 30)
    const intent = (await createIntent(invoice.id, 'EUR')).body
    assert.equal(intent.currency, 'EUR')
    paypal.approve(intent.gatewayOrderId)
    const res = await http(url, 'PATCH', `/billing-payment-intents/${intent.id}`, {
      token: facility.biller.token,
      body: { capture: true }
    })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.equal(res.body.status, 'captured')
    assert.deepEqual(
      (await paymentsOf(invoice.id)).map((p: any) => [p.amount, p.currency, p.item]),
      [[30, 'EUR', item.id]]
    )
  })

  it('refuses at capture an intent whose currency is not the invoice’s (409), recording no payment and capturing nothing', async () => {
    const { invoice, item } = await invoiceIn('EUR', 30)
    const intent = (await createIntent(invoice.id, 'EUR')).body
    paypal.approve(intent.gatewayOrderId)
    // A USD intent for this EUR invoice, as a writer before the rule (or another writer) could have stored it.
    await (server.app.service('billing-payment-intents' as any) as any)._patch(intent.id, { currency: 'USD' }) // `any`: internal store write
    const res = await http(url, 'PATCH', `/billing-payment-intents/${intent.id}`, {
      token: facility.biller.token,
      body: { capture: true }
    })
    assert.equal(res.status, 409, JSON.stringify(res.body))
    assert.match(res.body.message, /USD.*EUR/)
    assert.equal(paypal.orders.get(intent.gatewayOrderId)!.captures, 0)
    assert.deepEqual(await paymentsOf(invoice.id), [])
    assert.equal(
      (await http(url, 'GET', `/billing-items/${item.id}`, { token: facility.biller.token })).body.balance,
      30
    )
    assert.equal(
      (await http(url, 'GET', `/billing-payment-intents/${intent.id}`, { token: facility.biller.token })).body
        .status,
      'approved'
    )
  })
})
