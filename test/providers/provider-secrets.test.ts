// Processor and gateway secrets stay with the processor and the gateway: the server runs as its own process
// (as `npm start` does) with the Stripe processor and the PayPal gateway pointed at their local fakes, logging
// at debug level; customers, cards, intents and captures are driven over HTTP, with outages and timeouts on
// both sides; then no log line, HTTP answer or Socket.IO event carries the Stripe secret key, the PayPal client
// secret, PayPal's access token or an intent's checkout secret field.
import assert from 'node:assert/strict'
import { http, recordEvents, signUp, socketClient, tempDir, waitUntil } from '../helpers/app'
import { startPayPalServer, type PayPalServer } from '../helpers/paypal-server'
import { startServerProcess, type ServerProcess } from '../helpers/server-process'
import { startStripeServer, type StripeServer } from '../helpers/stripe-server'

describe('processor and gateway secrets (server process, debug logs)', function () {
  this.timeout(90000)
  let stripe: StripeServer
  let paypal: PayPalServer
  let server: ServerProcess

  before(async () => {
    stripe = await startStripeServer()
    paypal = await startPayPalServer()
    server = await startServerProcess({
      MONGODB_URL: '',
      DATA_DIR: tempDir('clinic-secrets-'),
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      PROCESSOR: 'stripe',
      PROCESSOR_TIMEOUT_MS: '1500',
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_HOST: '127.0.0.1',
      STRIPE_PORT: String(stripe.port),
      STRIPE_PROTOCOL: 'http',
      GATEWAYS: '["sandbox","paypal"]',
      PAYPAL_CLIENT_ID: paypal.clientId,
      PAYPAL_CLIENT_SECRET: paypal.clientSecret,
      PAYPAL_BASE_URL: paypal.url,
      PAYPAL_TIMEOUT_MS: '1500'
    })
  })
  after(async () => {
    await server?.kill('SIGTERM')
    await stripe?.close()
    await paypal?.close()
  })

  it('never writes them to a log line, an HTTP answer or a realtime event, outages and timeouts included', async () => {
    const owner = await signUp(server.url, {
      organization: { name: 'Secret-keeping clinic', type: 'facility' }
    })
    const facility = owner.organization.id
    const socket = socketClient(server.url)
    const answers: unknown[] = []
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await http(server.url, method, path, { token: owner.token, body })
      answers.push(res.body)
      return res
    }
    try {
      await socket.client.authenticate({ strategy: 'jwt', accessToken: owner.token })
      const customerEvents = recordEvents(socket.client, 'billing/customers')
      const intentEvents = recordEvents(socket.client, 'billing-payment-intents')

      // Stripe: a customer with a card, another card, an outage and a timeout (both 502), a deleted card.
      const customer = await call('POST', '/billing/customers', {
        owner: { organization: facility },
        processorToken: 'tok_visa'
      })
      assert.equal(customer.status, 201, JSON.stringify(customer.body))
      assert.equal(
        (await call('PATCH', `/billing/customers/${customer.body.id}`, { processorToken: 'tok_mastercard' }))
          .status,
        200
      )
      stripe.mode = 'fail'
      assert.equal(
        (await call('PATCH', `/billing/customers/${customer.body.id}`, { processorToken: 'tok_amex' }))
          .status,
        502
      )
      stripe.mode = 'hang'
      assert.equal(
        (await call('GET', `/billing/customers/${customer.body.id}?$populateProcessorCards=true`)).status,
        502
      )
      stripe.mode = 'ok'
      const cards = (await call('GET', `/billing/customers/${customer.body.id}?$populateProcessorCards=true`))
        .body.processorCustomerCards.data
      assert.equal(
        (await call('PATCH', `/billing/customers/${customer.body.id}`, { $deleteProcessorCard: cards[0].id }))
          .status,
        200
      )
      assert.equal(
        (
          await call('PATCH', `/billing/customers/${customer.body.id}`, {
            processorToken: 'tok_chargeDeclined'
          })
        ).status,
        402
      )

      // PayPal: an intent, an outage on create (502), approval and a capture that fails once (502), then captured.
      const intent = await call('POST', '/billing-payment-intents', {
        gatewayType: 'paypal-paypal',
        currency: 'USD',
        facility,
        gatewayReturnURL: 'http://127.0.0.1:9/paid',
        items: [{ name: 'Visit', amountPerItem: 30, quantity: 1 }]
      })
      assert.equal(intent.status, 201, JSON.stringify(intent.body))
      paypal.mode = 'fail'
      assert.equal(
        (
          await call('POST', '/billing-payment-intents', {
            gatewayType: 'paypal-card',
            currency: 'USD',
            facility,
            items: [{ name: 'Visit', amountPerItem: 30, quantity: 1 }]
          })
        ).status,
        502
      )
      paypal.mode = 'ok'
      paypal.approve(intent.body.gatewayOrderId)
      paypal.failCaptures = true
      assert.equal(
        (await call('PATCH', `/billing-payment-intents/${intent.body.id}`, { capture: true })).status,
        502
      )
      paypal.failCaptures = false
      assert.equal(
        (await call('PATCH', `/billing-payment-intents/${intent.body.id}`, { capture: true })).body.status,
        'captured'
      )
      // A sandbox intent too: its approval page secret must stay out of the documents and events.
      const sandbox = await call('POST', '/billing-payment-intents', {
        gatewayType: 'sandbox-card',
        currency: 'USD',
        facility,
        items: [{ name: 'Visit', amountPerItem: 5, quantity: 1 }]
      })
      assert.equal(sandbox.status, 201)

      await waitUntil(
        () => customerEvents.length >= 3 && intentEvents.some((e) => e.data.status === 'captured'),
        10000,
        'the customer and intent events'
      )
      const events = [...customerEvents, ...intentEvents]
      assert.ok(events.length >= 5)

      const logs = server.output()
      // The logs are not empty: request lines and the two outages' warnings are there.
      assert.match(logs, /Card processor unavailable/)
      assert.match(logs, /Payment gateway paypal unavailable/)
      assert.match(logs, /"path":"\/billing\/customers/)
      const secrets = [
        stripe.secretKey,
        stripe.secretKey.slice(-10),
        paypal.clientSecret,
        Buffer.from(`${paypal.clientId}:${paypal.clientSecret}`).toString('base64'),
        'A21AA'
      ]
      for (const [what, text] of [
        ['log lines', logs],
        ['HTTP answers', JSON.stringify(answers)],
        ['realtime events', JSON.stringify(events)]
      ] as const) {
        for (const secret of secrets)
          assert.ok(!text.includes(secret), `${what} carry a secret (${secret.slice(0, 6)}…)`)
        assert.doesNotMatch(text, /checkoutSecret/, what)
      }
    } finally {
      socket.close()
    }
  })
})
