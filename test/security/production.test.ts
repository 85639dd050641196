// Production takes real money and signs tokens with a real secret. Server processes started as operators start
// them (NODE_ENV=production): on sandbox payments they refuse to start with one line saying what to do, unless
// ALLOW_SANDBOX_PAYMENTS=true (then a warning at every start and "payments":"sandbox" in /health/ready); with
// Stripe configured the sandbox checkout and approval pages are 404s, so POSTing the sandbox pay form activates
// nothing; a weak AUTH_SECRET is refused with the command that makes a good one.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { http, signUp, startServer, tempDir, type TestServer } from '../helpers/app'
import { startFacilityServer } from '../helpers/billing'
import { answerCheckout } from '../helpers/gateways'
import { startChild, type ChildServer } from '../helpers/child'
import { startPayPalServer, type PayPalServer } from '../helpers/paypal-server'
import { startServerProcess } from '../helpers/server-process'
import { startStripeServer, type StripeServer } from '../helpers/stripe-server'
import { signUpWith } from '../helpers/subscriptions'
import { checkPaymentsForProduction, sandboxPaymentSettings } from '../../src/providers/payments-mode'
import { estimatedBits, resolveAuthSecret, weakSecretReason } from '../../src/auth-secret'
import { checkConfiguration } from '../../src/configuration'

const defaults = () =>
  checkConfiguration(
    JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../config/default.json'), 'utf8'))
  )
const strongSecret = () => crypto.randomBytes(48).toString('base64')

/** Starts a server process that must fail; resolves to its exit code and everything it wrote. */
const refusedStart = async (env: Record<string, string>): Promise<{ code: number; output: string }> =>
  startServerProcess({
    MONGODB_URL: '',
    DATA_DIR: tempDir('clinic-prod-'),
    NODE_ENV: 'production',
    ...env
  }).then(
    async (server) => {
      await server.kill()
      throw new Error(`the server started:\n${server.output()}`)
    },
    (error: { code: number; output: string }) => error
  )

/** The one line a refused start prints (whatever its format), checked to be one line without a stack. */
const oneLine = (output: string) => {
  const lines = output.split('\n').filter((line) => line.trim() !== '')
  assert.equal(lines.length, 1, `one line expected:\n${output}`)
  assert.doesNotMatch(output, /\n\s+at |\\n\s+at /, 'no stack trace')
  return lines[0]
}

describe('production start-up', function () {
  this.timeout(120_000)

  describe('payments', () => {
    let stripe: StripeServer
    const liveKey = `sk_live_${crypto.randomBytes(12).toString('hex')}`
    before(async () => {
      stripe = await startStripeServer(liveKey)
    })
    after(async () => {
      await stripe.close()
    })
    const onStripe = () => ({
      PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: liveKey,
      STRIPE_HOST: '127.0.0.1',
      STRIPE_PORT: String(stripe.port),
      STRIPE_PROTOCOL: 'http',
      GATEWAYS: '[]'
    })

    it('refuses to start on the sandbox processor and gateway (the defaults) with one line naming them and what to do, exit 1', async () => {
      const { code, output } = await refusedStart({ AUTH_SECRET: strongSecret() })
      assert.equal(code, 1)
      const line = oneLine(output)
      assert.match(line, /PROCESSOR=sandbox/)
      assert.match(line, /GATEWAYS includes sandbox/)
      assert.match(line, /PROCESSOR=stripe/)
      assert.match(line, /ALLOW_SANDBOX_PAYMENTS=true/)
    })

    it('refuses the sandbox gateway alone, even on a live Stripe processor', async () => {
      const { code, output } = await refusedStart({
        AUTH_SECRET: strongSecret(),
        ...onStripe(),
        GATEWAYS: '["sandbox"]'
      })
      assert.equal(code, 1)
      const line = oneLine(output)
      assert.match(line, /GATEWAYS includes sandbox/)
      assert.doesNotMatch(line, /PROCESSOR=sandbox/)
    })

    it('names every setting that takes no real money: Stripe test keys and PayPal sandbox too', () => {
      const settings = defaults()
      assert.deepEqual(sandboxPaymentSettings(settings), ['PROCESSOR=sandbox', 'GATEWAYS includes sandbox'])
      const stripeTest = {
        ...settings,
        processor: {
          ...settings.processor,
          kind: 'stripe' as const,
          stripe: { ...settings.processor.stripe, secretKey: 'sk_test_123' }
        }
      }
      const paypalSandbox = { ...stripeTest, gateways: { ...settings.gateways, enabled: ['paypal'] } }
      assert.deepEqual(sandboxPaymentSettings(paypalSandbox), [
        'STRIPE_SECRET_KEY is a Stripe test-mode key',
        "PAYPAL_BASE_URL is PayPal's sandbox (https://api-m.sandbox.paypal.com)"
      ])
      const live = {
        ...paypalSandbox,
        processor: {
          ...stripeTest.processor,
          stripe: { ...stripeTest.processor.stripe, secretKey: 'sk_live_123' }
        },
        gateways: {
          ...paypalSandbox.gateways,
          paypal: { ...paypalSandbox.gateways.paypal, baseURL: 'https://api-m.paypal.com' }
        }
      }
      assert.deepEqual(sandboxPaymentSettings(live), [])
      assert.equal(checkPaymentsForProduction({ ...live, allowSandboxPayments: false }, 'production'), null)
      assert.throws(
        () => checkPaymentsForProduction({ ...paypalSandbox, allowSandboxPayments: false }, 'production'),
        /test-mode key; PAYPAL_BASE_URL/
      )
      assert.equal(
        checkPaymentsForProduction({ ...settings, allowSandboxPayments: false }, 'development'),
        null,
        'development keeps its sandbox'
      )
    })

    it('starts on the sandbox with ALLOW_SANDBOX_PAYMENTS=true, warns at every start, and /health/ready says payments: sandbox', async () => {
      const env = {
        NODE_ENV: 'production',
        DATA_DIR: tempDir('clinic-prod-'),
        AUTH_SECRET: strongSecret(),
        ALLOW_SANDBOX_PAYMENTS: 'true',
        LOG_LEVEL: 'warn'
      }
      for (const start of [1, 2]) {
        const child = await startChild(env)
        try {
          const ready = await http(child.url, 'GET', '/health/ready')
          assert.equal(ready.status, 200)
          assert.equal(ready.body.checks.payments, 'sandbox')
          assert.match(
            child.output(),
            /Sandbox payments in production \(ALLOW_SANDBOX_PAYMENTS=true\): PROCESSOR=sandbox; GATEWAYS includes sandbox/,
            `start ${start}`
          )
        } finally {
          assert.deepEqual(await child.kill('SIGTERM'), { code: 0, signal: null })
        }
      }
    })

    describe('on a live Stripe processor, without gateways', () => {
      let child: ChildServer
      before(async () => {
        child = await startChild({
          NODE_ENV: 'production',
          DATA_DIR: tempDir('clinic-prod-'),
          AUTH_SECRET: strongSecret(),
          LOG_LEVEL: 'warn',
          ...onStripe()
        })
      })
      after(async () => {
        await child?.kill('SIGTERM')
      })

      it('starts without a payments warning, and /health/ready says payments: live', async () => {
        const ready = await http(child.url, 'GET', '/health/ready')
        assert.equal(ready.status, 200)
        assert.equal(ready.body.checks.payments, 'live')
        assert.doesNotMatch(child.output(), /Sandbox payments/)
      })

      it('attacker: POSTing the sandbox pay form for a paid subscription is a 404, and the subscription stays unpaid', async () => {
        const packages = (await http(child.url, 'GET', '/subscription/packages?$limit=50')).body.data
        const plus = packages.find((pkg: any) => pkg.key === 'clinic-plus')
        const owner = await signUpWith(child.url, plus.id)
        assert.equal(owner.subscription.status, 'pending')
        const session = owner.subscription.checkoutSession.id
        assert.ok(stripe.checkoutSessions.has(session), 'the checkout is at Stripe')
        const forged = `cs_sandbox_${crypto.randomBytes(16).toString('hex')}`
        for (const id of [session, forged]) {
          for (const [method, suffix] of [
            ['GET', ''],
            ['POST', '/pay'],
            ['POST', '/fail']
          ]) {
            const res = await fetch(`${child.url}/processor/sandbox/checkout/${id}${suffix}`, {
              method,
              redirect: 'manual'
            })
            assert.equal(res.status, 404, `${method} ${id}${suffix}`)
          }
        }
        const approve = await fetch(
          `${child.url}/gateways/sandbox/checkout/${crypto.randomBytes(12).toString('hex')}/approve?secret=x`,
          { method: 'POST', redirect: 'manual' }
        )
        assert.equal(approve.status, 404)
        const after = await http(child.url, 'GET', `/subscriptions/${owner.subscription.id}`, {
          token: owner.token
        })
        assert.equal(after.body.status, 'pending')
      })

      it('refuses a private webhook URL without the development hint', async () => {
        const owner = await signUp(child.url, {
          organization: { name: 'Hooks', type: 'facility', types: ['clinic'] }
        })
        const res = await http(child.url, 'POST', '/webhook-events', {
          token: owner.token,
          body: { organization: owner.organization.id, url: 'http://127.0.0.1:9/hook', events: '*' }
        })
        assert.equal(res.status, 400)
        assert.deepEqual(res.body.errors, [
          { field: 'url', message: 'points to a private, loopback or link-local address' }
        ])
      })
    })
  })

  describe('AUTH_SECRET', () => {
    const environment = { ALLOW_SANDBOX_PAYMENTS: 'true' }

    it('refuses a short secret with one line saying how to generate one', async () => {
      const { code, output } = await refusedStart({ ...environment, AUTH_SECRET: 'abc' })
      assert.equal(code, 1)
      const line = oneLine(output)
      assert.match(line, /AUTH_SECRET is too weak for production: it is 3 bytes long; at least 32 are needed/)
      assert.match(line, /openssl rand -base64 48/)
    })

    it('refuses a long secret that does not look random', async () => {
      const { code, output } = await refusedStart({ ...environment, AUTH_SECRET: 'a'.repeat(64) })
      assert.equal(code, 1)
      assert.match(
        oneLine(output),
        /AUTH_SECRET is too weak for production: it does not look random .*openssl rand -base64 48/
      )
    })

    it('refuses repeats, sequences, placeholders and the development secret of DATA_DIR; accepts generated secrets', () => {
      const refused = [
        'abababababababababababababababababababab',
        'abcdefghijklmnopqrstuvwxyz0123456789',
        'Xk9#mP2$Xk9#mP2$Xk9#mP2$Xk9#mP2$Xk9#mP2$',
        '0123456789012345678901234567890123456789',
        'change-me-to-a-long-random-string-1234567',
        'a-production-secret-for-this-test'
      ]
      for (const secret of refused)
        assert.ok(weakSecretReason(secret), `${secret} (${estimatedBits(secret)} bits)`)
      assert.throws(
        () => resolveAuthSecret('', tempDir('clinic-prod-'), 'production'),
        /AUTH_SECRET is not set.*openssl rand -base64 48/
      )
      for (let i = 0; i < 200; i++) {
        for (const secret of [
          crypto.randomBytes(48).toString('base64'),
          crypto.randomBytes(32).toString('hex')
        ])
          assert.equal(weakSecretReason(secret), undefined, secret)
      }
      // The secret development generated under a DATA_DIR is not a production secret.
      const dataDir = tempDir('clinic-prod-')
      const development = resolveAuthSecret('', dataDir, 'development')
      assert.throws(
        () => resolveAuthSecret(development, dataDir, 'production'),
        /the development secret generated in DATA_DIR\/\.auth-secret/
      )
      assert.equal(
        resolveAuthSecret(development, tempDir('clinic-prod-'), 'production'),
        development,
        'the same random value elsewhere is fine'
      )
    })
  })
})

describe('sandbox pages when the sandbox is not in use', function () {
  this.timeout(60_000)
  let stripe: StripeServer
  let paypal: PayPalServer
  let server: TestServer | undefined
  before(async () => {
    stripe = await startStripeServer()
    paypal = await startPayPalServer()
  })
  after(async () => {
    await server?.close()
    await stripe.close()
    await paypal.close()
  })
  // Real processor and gateway (their local stand-ins), and no sandbox.
  const live = () =>
    ({
      processor: {
        kind: 'stripe',
        timeoutMs: 3000,
        stripe: {
          secretKey: stripe.secretKey,
          host: '127.0.0.1',
          port: String(stripe.port),
          protocol: 'http'
        }
      },
      gateways: {
        enabled: ['paypal'],
        paypal: {
          clientId: paypal.clientId,
          clientSecret: paypal.clientSecret,
          baseURL: paypal.url,
          timeoutMs: 2000
        }
      }
    }) as any // `as any`: processor and gateway settings are raw config values

  it('answers 404 for a sandbox checkout and a sandbox approval page made before Stripe and PayPal replaced the sandbox; nothing becomes paid', async () => {
    const started = await startFacilityServer()
    server = started.server
    const { facility } = started
    const intent = await http(server.url, 'POST', '/billing-payment-intents', {
      token: facility.biller.token,
      body: {
        gatewayType: 'sandbox-card',
        currency: 'USD',
        facility: facility.id,
        items: [{ name: 'Consultation', amountPerItem: 40, quantity: 1 }]
      }
    })
    assert.equal(intent.status, 201, JSON.stringify(intent.body))
    const packages = (await http(server.url, 'GET', '/subscription/packages?$limit=50')).body.data
    const owner = await signUpWith(server.url, packages.find((pkg: any) => pkg.key === 'clinic-plus').id)
    const checkout = new URL(owner.subscription.checkoutSession.url)
    const approval = new URL(intent.body.checkout.approvalURL)
    assert.equal(
      (await fetch(`${server.url}${approval.pathname}${approval.search}`)).status,
      200,
      'served while the sandbox is in use'
    )
    assert.equal(
      (await fetch(`${server.url}${checkout.pathname}`)).status,
      200,
      'served while the sandbox is in use'
    )
    // A second intent the payer approved on the sandbox page before the switch.
    const approved = await http(server.url, 'POST', '/billing-payment-intents', {
      token: facility.biller.token,
      body: {
        gatewayType: 'sandbox-card',
        currency: 'USD',
        facility: facility.id,
        items: [{ name: 'Consultation', amountPerItem: 25, quantity: 1 }]
      }
    })
    await answerCheckout(approved.body.checkout.approvalURL, 'approve')

    // The same data, now on Stripe and PayPal.
    const { dataDir } = server
    const mongodb = server.app.get('mongodb')
    await server.close({ keep: true })
    server = await startServer({ dataDir, mongodb, ...live() })
    const at = (url: URL, suffix = '') => `${server!.url}${url.pathname}${suffix}${url.search}`
    assert.equal((await fetch(at(approval))).status, 404)
    assert.equal((await fetch(at(approval, '/approve'), { method: 'POST', redirect: 'manual' })).status, 404)
    assert.equal((await fetch(at(checkout))).status, 404)
    assert.equal((await fetch(at(checkout, '/pay'), { method: 'POST', redirect: 'manual' })).status, 404)
    const stored = await http(server.url, 'GET', `/billing-payment-intents/${intent.body.id}`, {
      token: facility.biller.token
    })
    assert.equal(stored.body.status, 'created')
    // A sandbox approval is no money: it is not captured once the sandbox is gone.
    const capture = await http(server.url, 'PATCH', `/billing-payment-intents/${approved.body.id}`, {
      token: facility.biller.token,
      body: { capture: true }
    })
    assert.equal(capture.status, 409, JSON.stringify(capture.body))
    assert.equal(capture.body.data.reason, 'gateway-not-configured')
    assert.match(
      capture.body.message,
      /gateway 'sandbox', which is not configured on this server \(GATEWAYS: paypal\)/
    )
    assert.equal(
      (
        await http(server.url, 'GET', `/billing-payment-intents/${approved.body.id}`, {
          token: facility.biller.token
        })
      ).body.status,
      'approved'
    )
    assert.notEqual(
      (await http(server.url, 'GET', `/subscriptions/${owner.subscription.id}`, { token: owner.token })).body
        .status,
      'active'
    )
    const ready = await http(server.url, 'GET', '/health/ready')
    assert.equal(ready.body.checks.payments, 'sandbox', 'a Stripe test-mode key takes no real money either')
  })
})
