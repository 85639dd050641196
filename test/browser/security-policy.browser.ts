// The server's Content-Security-Policy (no inline script or style, connections to this origin only, forms
// posting to this origin) in Debian's headless Chromium through playwright-core: the console signs up and
// signs in over its Socket.IO connection, and the sandbox approval page's form answers and redirects to a return
// page on another origin — all without a single policy violation. `npm run test:browser`.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import nodeHttp from 'node:http'
import path from 'node:path'
import { type Browser, type BrowserContext } from 'playwright-core'
import { http, signUp, startServer, type TestServer } from '../helpers/app'
import { listenOnLoopback, type Listening } from '../helpers/loopback'
import { watchPolicyViolations } from '../helpers/policy-violations'
import { launchChromium } from '../helpers/browser'

const password = 'correct horse battery'

describe('the Content-Security-Policy in headless Chromium', function () {
  this.timeout(90_000)
  let browser: Browser
  let server: TestServer
  let shop: Listening
  let context: BrowserContext

  before(async () => {
    assert.ok(
      fs.existsSync(path.resolve(__dirname, '../../public/console.js')),
      'public/console.js is built by `node scripts/bundle-console.js` (npm run test:browser does it)'
    )
    browser = await launchChromium()
    server = await startServer()
    // The payer's shop: where the approval page sends the payer back (another origin than the server's).
    shop = await listenOnLoopback(
      nodeHttp.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        res.end('<!doctype html><title>Shop</title><h1 id="thanks">Thank you</h1>')
      })
    )
  })
  beforeEach(async () => {
    context = await browser.newContext()
  })
  afterEach(() => context?.close())
  after(async () => {
    await browser?.close()
    await shop?.close()
    await server?.close()
  })

  it('shows the console’s sign-in form, signs up and signs in over Socket.IO with no policy violation', async () => {
    const page = await context.newPage()
    const violations = await watchPolicyViolations(page)
    const answer = await page.goto(`${server.url}/`)
    assert.match(answer?.headers()['content-security-policy'] ?? '', /default-src 'self'/)
    await page.locator('#login-form').waitFor()
    // The stylesheet applies (from /console.css, not an inline <style>): the buttons have the accent colour.
    // (`any`: this file is compiled without the DOM types; the function runs in the page.)
    assert.equal(
      await page
        .locator('#login-form button[type="submit"]')
        .evaluate((button) => (globalThis as any).getComputedStyle(button).backgroundColor),
      'rgb(11, 92, 173)'
    )
    const email = `csp-${Date.now()}@example.test`
    const form = page.locator('#signup-form')
    await form.getByLabel('Email').fill(email)
    await form.getByLabel('Password').fill(password)
    await form.getByLabel('First name').fill('Policy')
    await form.getByRole('button', { name: 'Sign up' }).click()
    await page.locator('#signed-in-as').waitFor()
    assert.equal(await page.locator('#signed-in-as').textContent(), email)
    await page.locator('#logout').click()
    const login = page.locator('#login-form')
    await login.getByLabel('Email').fill(email)
    await login.getByLabel('Password').fill(password)
    await login.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('#signed-in-as').waitFor()
    assert.deepEqual(violations, [])
  })

  it('lets the sandbox approval page’s form answer and send the payer to a return page on another origin, with no policy violation', async () => {
    const payer = await signUp(server.url)
    const intent = await http(server.url, 'POST', '/billing-payment-intents', {
      token: payer.token,
      body: {
        gatewayType: 'sandbox-card',
        currency: 'USD',
        gatewayReturnURL: `${shop.url}/paid`,
        gatewayCancelURL: `${shop.url}/cancelled`,
        items: [{ name: 'Donation', amountPerItem: 5, quantity: 1 }]
      }
    })
    assert.equal(intent.status, 201, JSON.stringify(intent.body))
    const page = await context.newPage()
    const violations = await watchPolicyViolations(page)
    const answer = await page.goto(intent.body.checkout.approvalURL)
    // Forms post to this server only; their answer may redirect to the intent's return and cancel origin.
    assert.match(
      answer?.headers()['content-security-policy'] ?? '',
      new RegExp(`form-action 'self' ${shop.url}(;|$)`)
    )
    assert.equal(await page.locator('#amount').textContent(), '5 USD')
    await page.locator('#approve').click()
    await page.waitForURL(`${shop.url}/paid?intent=${intent.body.id}`)
    assert.equal(await page.locator('#thanks').textContent(), 'Thank you')
    assert.equal(
      (await http(server.url, 'GET', `/billing-payment-intents/${intent.body.id}`, { token: payer.token }))
        .body.status,
      'approved'
    )
    assert.deepEqual(violations, [])
  })
})
