// The PayPal Orders v2 gateway (production code, REST) against a local PayPal API, driven through
// /billing-payment-intents over HTTP: the approve link becomes checkout.approvalURL, approval is learned from
// PayPal at capture time, declines mark the intent failed, outages are 502s with nothing captured, and the
// credentials go to PayPal only.
import assert from 'node:assert/strict'
import { http, startServer, type TestServer } from '../helpers/app'
import { startFacilityServer, type FacilityFixture } from '../helpers/billing'
import { startPayPalServer, type PayPalServer } from '../helpers/paypal-server'

describe('PayPal gateway (against a local PayPal API)', function () {
  this.timeout(30000)
  let paypal: PayPalServer
  let server: TestServer
  let facility: FacilityFixture
  const answers: unknown[] = []

  const settings = () => ({
    gateways: {
      enabled: ['sandbox', 'paypal'],
      expireAfterMs: 3600000,
      fees: { 'paypal-paypal': { percent: 3.49, fixed: 0.49 } },
      paypal: {
        clientId: paypal.clientId,
        clientSecret: paypal.clientSecret,
        baseURL: paypal.url,
        timeoutMs: 2000
      }
    }
  })

  before(async () => {
    paypal = await startPayPalServer()
    ;({ server, facility } = await startFacilityServer(settings()))
  })
  afterEach(() => {
    paypal.mode = 'ok'
    paypal.declineCaptures = false
    paypal.failCaptures = false
  })
  after(async () => {
    await server?.close()
    await paypal?.close()
  })

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await http(server.url, method, path, { token: facility.biller.token, body })
    answers.push(res.body)
    return res
  }
  const create = (gatewayType = 'paypal-paypal', amount = 80) =>
    call('POST', '/billing-payment-intents', {
      gatewayType,
      currency: 'USD',
      facility: facility.id,
      gatewayReturnURL: 'http://127.0.0.1:9/paid',
      gatewayCancelURL: 'http://127.0.0.1:9/cancelled',
      items: [{ name: 'Consultation', amountPerItem: amount, quantity: 1 }]
    })
  const capture = (id: string) => call('PATCH', `/billing-payment-intents/${id}`, { capture: true })

  it('creates a PayPal order whose approve link is checkout.approvalURL, with the amount and return URLs', async () => {
    const res = await create()
    assert.equal(res.status, 201, JSON.stringify(res.body))
    const order = paypal.orders.get(res.body.gatewayOrderId)!
    assert.deepEqual(order.amount, { currency_code: 'USD', value: '80.00' })
    assert.equal(order.returnURL, 'http://127.0.0.1:9/paid')
    assert.equal(order.cancelURL, 'http://127.0.0.1:9/cancelled')
    assert.equal(res.body.checkout.approvalURL, `${paypal.url}/checkoutnow?token=${order.id}`)
    assert.deepEqual(res.body.receivables, { gross: 80, fees: 3.28, net: 76.72 })
  })

  it('refuses to capture before the payer approved at PayPal (409), then captures once PayPal reports approval', async () => {
    const intent = (await create()).body
    const early = await capture(intent.id)
    assert.equal(early.status, 409)
    assert.equal(paypal.orders.get(intent.gatewayOrderId)!.captures, 0)
    paypal.approve(intent.gatewayOrderId)
    const res = await capture(intent.id)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.equal(res.body.status, 'captured')
    assert.deepEqual(
      res.body.statusHistory.map((s: any) => s.status),
      ['created', 'approved', 'capturing', 'captured']
    )
    assert.equal(paypal.orders.get(intent.gatewayOrderId)!.captures, 1)
    assert.equal((await capture(intent.id)).status, 409)
  })

  it('offers the card method through the same approval flow', async () => {
    const intent = (await create('paypal-card', 12)).body
    assert.equal(intent.gatewayType, 'paypal-card')
    paypal.approve(intent.gatewayOrderId)
    assert.equal((await capture(intent.id)).body.status, 'captured')
  })

  it('cancels the intent when PayPal reports its order VOIDED: the capture is a 409 naming cancelled, and nothing is captured', async () => {
    const intent = (await create()).body
    paypal.orders.get(intent.gatewayOrderId)!.status = 'VOIDED'
    const res = await capture(intent.id)
    assert.equal(res.status, 409)
    assert.match(res.body.message, /is cancelled/)
    const after = (await call('GET', `/billing-payment-intents/${intent.id}`)).body
    assert.deepEqual([after.status, after.cancelReason], ['cancelled', 'gateway'])
    assert.equal(paypal.orders.get(intent.gatewayOrderId)!.captures, 0)
  })

  it('marks the intent failed when PayPal declines the capture', async () => {
    const intent = (await create()).body
    paypal.approve(intent.gatewayOrderId)
    paypal.declineCaptures = true
    const res = await capture(intent.id)
    assert.equal(res.status, 200)
    assert.equal(res.body.status, 'failed')
    assert.match(res.body.failureReason, /INSTRUMENT_DECLINED/)
  })

  it('answers a PayPal outage on create with 502 and leaves no intent', async () => {
    const before = (await call('GET', `/billing-payment-intents?facility=${facility.id}&$limit=0`)).body.total
    paypal.mode = 'fail'
    const res = await create()
    assert.equal(res.status, 502)
    assert.match(res.body.message, /paypal is unavailable/)
    paypal.mode = 'ok'
    assert.equal(
      (await call('GET', `/billing-payment-intents?facility=${facility.id}&$limit=0`)).body.total,
      before
    )
  })

  it('answers a failed capture call with 502, keeps the intent approved, and captures it once on retry', async () => {
    const intent = (await create()).body
    paypal.approve(intent.gatewayOrderId)
    paypal.failCaptures = true
    const down = await capture(intent.id)
    assert.equal(down.status, 502)
    assert.equal((await call('GET', `/billing-payment-intents/${intent.id}`)).body.status, 'approved')
    paypal.failCaptures = false
    assert.equal((await capture(intent.id)).body.status, 'captured')
    assert.equal(paypal.orders.get(intent.gatewayOrderId)!.captures, 1)
  })

  it('cannot learn an approval while PayPal is down: the capture is a 409 and the intent stays created', async () => {
    const intent = (await create()).body
    paypal.approve(intent.gatewayOrderId)
    paypal.mode = 'fail'
    assert.equal((await capture(intent.id)).status, 409)
    paypal.mode = 'ok'
    assert.equal((await capture(intent.id)).body.status, 'captured')
  })

  it('finishes a capture interrupted after PayPal captured: at restart the intent is captured, not captured again', async () => {
    const intent = (await create()).body
    paypal.approve(intent.gatewayOrderId)
    const order = paypal.orders.get(intent.gatewayOrderId)!
    // The state a crash right after PayPal's capture leaves behind.
    order.status = 'COMPLETED'
    order.captures = 1
    await (server.app.service('billing-payment-intents' as any) as any)._patch(intent.id, {
      status: 'capturing',
      capturingAt: Date.now() - 1000
    }) // `any`: internal store call to stage the crash
    const dataDir = server.dataDir
    // The same data on restart (MongoDB: the same database), where the interrupted capture counts as stale at once.
    const mongodb = server.app.get('mongodb')
    const billing = { ...server.app.get('billing'), staleAfterMs: 0 }
    await server.close({ keep: true })
    server = await startServer({ dataDir, mongodb, billing, ...settings() } as any) // `as any`: gateway settings are raw config values
    const after = await call('GET', `/billing-payment-intents/${intent.id}`)
    assert.equal(after.body.status, 'captured')
    assert.equal(order.captures, 1)
  })

  it('answers a POST and a capture retried with the same Idempotency-Key from the first result, without calling PayPal again', async () => {
    const body = {
      gatewayType: 'paypal-paypal',
      currency: 'USD',
      facility: facility.id,
      gatewayReturnURL: 'http://127.0.0.1:9/paid',
      items: [{ name: 'Consultation', amountPerItem: 61, quantity: 1 }]
    }
    const send = (method: string, path: string, data: unknown, key: string) =>
      http(server.url, method, path, {
        token: facility.biller.token,
        body: data,
        headers: { 'idempotency-key': key }
      })
    const ordersBefore = paypal.orders.size
    const first = await send('POST', '/billing-payment-intents', body, 'paypal-create-1')
    assert.equal(first.status, 201, JSON.stringify(first.body))
    const callsAfterCreate = paypal.requests.length
    const again = await send('POST', '/billing-payment-intents', body, 'paypal-create-1')
    assert.deepEqual([again.status, again.body], [201, first.body])
    assert.equal(paypal.orders.size, ordersBefore + 1)
    assert.equal(paypal.requests.length, callsAfterCreate, 'no PayPal call for the retry')
    paypal.approve(first.body.gatewayOrderId)
    const captured = await send(
      'PATCH',
      `/billing-payment-intents/${first.body.id}`,
      { capture: true },
      'paypal-capture-1'
    )
    assert.equal(captured.body.status, 'captured', JSON.stringify(captured.body))
    const callsAfterCapture = paypal.requests.length
    const retried = await send(
      'PATCH',
      `/billing-payment-intents/${first.body.id}`,
      { capture: true },
      'paypal-capture-1'
    )
    assert.deepEqual([retried.status, retried.body], [200, captured.body])
    assert.equal(paypal.requests.length, callsAfterCapture, 'no PayPal call for the retried capture')
    assert.equal(paypal.orders.get(first.body.gatewayOrderId)!.captures, 1)
  })

  it('sends the client secret and access token to PayPal only', async () => {
    assert.ok(paypal.requests.some((r) => r.path === '/v1/oauth2/token'))
    assert.ok(
      paypal.requests
        .filter((r) => r.path.includes('/capture'))
        .every((r) => typeof r.requestId === 'string' && r.requestId.length > 0),
      'captures carry PayPal-Request-Id'
    )
    const text = JSON.stringify(answers)
    assert.ok(!text.includes(paypal.clientSecret))
    assert.ok(!text.includes('A21AA'))
  })
})
