// Browser hardening headers on what the server answers, read as a browser receives them: the console and its
// assets, /docs, the sandbox checkout pages and the JSON API. (That the pages work under the policy, without a
// violation, is checked in Chromium: test/browser/security-policy.browser.ts and test/ops/docs-browser.test.ts.)
import assert from 'node:assert/strict'
import { http, signUp, type TestServer } from './helpers/app'
import { signUpWith, startSubsServer } from './helpers/subscriptions'

/** The directives of a Content-Security-Policy header, by name. */
const directives = (header: string | null) =>
  Object.fromEntries(
    (header ?? '')
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...values]) => [name, values])
  )

/** Asserts the page headers: a policy with no inline script or style and no framing, nosniff, no Referer. */
const assertPageHeaders = (headers: Headers, where: string) => {
  const policy = directives(headers.get('content-security-policy'))
  assert.deepEqual(policy['default-src'], ["'self'"], where)
  assert.deepEqual(policy['script-src'], ["'self'"], where)
  assert.deepEqual(policy['style-src'], ["'self'"], where)
  assert.deepEqual(policy['object-src'], ["'none'"], where)
  assert.deepEqual(policy['frame-ancestors'], ["'none'"], where)
  assert.equal(policy['form-action']?.[0], "'self'", where)
  assert.equal(headers.get('x-frame-options'), 'DENY', where)
  assert.equal(headers.get('x-content-type-options'), 'nosniff', where)
  assert.equal(headers.get('referrer-policy'), 'no-referrer', where)
  return policy
}

describe('browser hardening headers', function () {
  this.timeout(30000)
  let server: TestServer
  let packages: Record<string, any>
  // Return pages on another origin than the server's (loopback, so allowed without GATEWAY_RETURN_ORIGINS).
  const RETURN = 'http://localhost:9/paid'
  const CANCEL = 'http://localhost:9/cancelled'
  before(async () => {
    ;({ server, packages } = await startSubsServer(
      {},
      { successURL: 'https://clinic.example/welcome', cancelURL: 'https://clinic.example/pay-later' }
    ))
  })
  after(() => server?.close())

  it('sets the policy, frame protection, nosniff and no-referrer on the console, its assets, /docs and its assets', async () => {
    for (const path of [
      '/',
      '/console.css',
      '/docs',
      '/docs/init.js',
      '/docs/swagger-ui.css',
      '/docs/swagger-ui-bundle.js'
    ]) {
      const res = await fetch(`${server.url}${path}`)
      assert.equal(res.status, 200, path)
      const policy = assertPageHeaders(res.headers, path)
      assert.deepEqual(policy['form-action'], ["'self'"], path)
    }
  })

  it('sets them on the sandbox checkout pages, whose form-action allows only this origin and where their answers redirect', async () => {
    const payer = await signUp(server.url)
    const intent = await http(server.url, 'POST', '/billing-payment-intents', {
      token: payer.token,
      body: {
        gatewayType: 'sandbox-card',
        currency: 'USD',
        gatewayReturnURL: RETURN,
        gatewayCancelURL: CANCEL,
        items: [{ name: 'Donation', amountPerItem: 5, quantity: 1 }]
      }
    })
    assert.equal(intent.status, 201, JSON.stringify(intent.body))
    const approval = await fetch(intent.body.checkout.approvalURL)
    assert.equal(approval.status, 200)
    assert.deepEqual(assertPageHeaders(approval.headers, 'approval page')['form-action'], [
      "'self'",
      'http://localhost:9'
    ])

    const owner = await signUpWith(server.url, packages['clinic-plus'].id)
    const checkout = await fetch(owner.subscription.checkoutSession.url)
    assert.equal(checkout.status, 200)
    assert.deepEqual(assertPageHeaders(checkout.headers, 'processor checkout')['form-action'], [
      "'self'",
      'https://clinic.example'
    ])

    for (const path of ['/gateways/return', '/gateways/cancel', '/processor/checkout/done']) {
      const res = await fetch(`${server.url}${path}`)
      assert.equal(res.status, 200, path)
      assertPageHeaders(res.headers, path)
    }
  })

  it('sends nosniff (and the policy) with JSON answers: successes, refusals and unknown paths', async () => {
    const payer = await signUp(server.url)
    const answers = [
      await http(server.url, 'GET', '/openapi.json'),
      await http(server.url, 'GET', '/health/live'),
      await http(server.url, 'GET', `/accounts/${payer.account.id}`, { token: payer.token }),
      await http(server.url, 'GET', '/billing-payment-intents'),
      await http(server.url, 'POST', '/billing-payment-intents', {
        token: payer.token,
        body: { gatewayType: 'sandbox-card' }
      }),
      await http(server.url, 'GET', '/no-such-service')
    ]
    assert.deepEqual(
      answers.map((res) => res.status),
      [200, 200, 200, 401, 400, 404]
    )
    for (const res of answers) {
      assert.match(res.headers.get('content-type') ?? '', /application\/json/)
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
      assert.deepEqual(directives(res.headers.get('content-security-policy'))['frame-ancestors'], ["'none'"])
    }
  })
})
