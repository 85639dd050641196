// The configuration: one schema checked when the app is built, the variables given in seconds converted to
// milliseconds, overrides merged over config/, and a bad value stopping the start with a message naming it.
import assert from 'node:assert/strict'
import defaults from '../config/default.json'
import { checkConfiguration, mergeSettings, settingsFromSecondsVariables } from '../src/configuration'
import { createApp } from '../src/app'
import { startServerProcess } from './helpers/server-process'
import { tempDir } from './helpers/app'

const valid = () => structuredClone(defaults) as Record<string, any>

describe('configuration', () => {
  it('accepts config/default.json as it is', () => {
    assert.doesNotThrow(() => checkConfiguration(valid()))
  })

  it('reads the variables given in seconds as milliseconds: fractions, lists, and "none" for no retries', () => {
    const settings = settingsFromSecondsVariables({
      WEBHOOK_RETRY_DELAYS: ' 0.2, 0.5 ,1',
      WEBHOOK_TIMEOUT: '0.3',
      RATE_LIMIT_LOGINS_PER_IP_SECONDS: '60'
    })
    assert.deepEqual(settings.webhooks, { retryDelaysMs: [200, 500, 1000], timeoutMs: 300 })
    assert.deepEqual(settings.rateLimits, { loginsPerIp: { durationMs: 60000 } })
    assert.deepEqual(settingsFromSecondsVariables({ WEBHOOK_RETRY_DELAYS: 'none' }).webhooks, {
      retryDelaysMs: []
    })
    assert.deepEqual(settingsFromSecondsVariables({}), {})
  })

  it('merges overrides key by key into settings with fixed keys, and replaces lists and maps', () => {
    const merged = mergeSettings(valid(), {
      oauth: { google: { clientId: 'given' } },
      gateways: { fees: { 'paypal-card': { percent: 1, fixed: 0 } } },
      billing: { currency: 'EUR' }
    })
    assert.equal(merged.oauth.google.clientId, 'given')
    assert.equal(merged.oauth.google.tokenURL, defaults.oauth.google.tokenURL)
    assert.deepEqual(Object.keys(merged.gateways.fees), ['paypal-card'])
    assert.deepEqual(merged.billing.paymentMethods, defaults.billing.paymentMethods)
  })

  it('refuses values that are not numbers, negative, or not whole where they must be, naming the setting and its variable', () => {
    const refusal = (change: Record<string, any>) => () => checkConfiguration(mergeSettings(valid(), change))
    assert.throws(
      refusal(settingsFromSecondsVariables({ WEBHOOK_RETRY_DELAYS: '5,soon' })),
      /WEBHOOK_RETRY_DELAYS must be number \(setting webhooks\.retryDelaysMs\.1, got "soon"\)/
    )
    assert.throws(refusal({ webhooks: { retryDelaysMs: [-1000] } }), /webhooks\.retryDelaysMs\.0/)
    assert.throws(
      refusal({ webhooks: { timeoutMs: 0 } }),
      /WEBHOOK_TIMEOUT must be > 0 \(setting webhooks\.timeoutMs, got 0\)/
    )
    assert.throws(refusal({ webhooks: { concurrency: 2.5 } }), /WEBHOOK_CONCURRENCY must be integer/)
    assert.throws(
      refusal({ webhooks: { concurrencyPerWebhook: 0 } }),
      /WEBHOOK_CONCURRENCY_PER_WEBHOOK must be >= 1/
    )
    assert.throws(refusal({ billing: { currency: 'dollars' } }), /BILLING_CURRENCY must match pattern/)
    assert.throws(
      refusal({ orders: { requestedForTypes: ['ward'] } }),
      /ORDERS_REQUESTED_FOR_TYPES must contain at least 1 valid item/
    )
    assert.throws(refusal({ processor: { kind: 'cash' } }), /PROCESSOR must be one of sandbox, stripe/)
  })

  it('checks what createApp is given before anything reads it', () => {
    assert.throws(
      () => createApp({ dataDir: tempDir(), billing: { moneyDecimals: 7 } }),
      /BILLING_MONEY_DECIMALS must be <= 4 \(setting billing\.moneyDecimals, got 7\)/
    )
  })

  it('a bad variable stops the server process with exit code 1 and a message naming it', async function () {
    this.timeout(30000)
    const failed = await startServerProcess({
      DATA_DIR: tempDir(),
      WEBHOOK_TIMEOUT: 'soon',
      SHUTDOWN_GRACE_MS: '-5'
    }).then(
      async (server) => {
        await server.kill()
        return null
      },
      (error: { code: number; output: string }) => error
    )
    assert.ok(failed, 'the server must not start')
    assert.equal(failed.code, 1)
    assert.match(
      failed.output,
      /WEBHOOK_TIMEOUT must be number \(setting webhooks\.timeoutMs, got \\?"soon\\?"\)/
    ) // (the log line is JSON)
    assert.match(failed.output, /SHUTDOWN_GRACE_MS must be >= 0 \(setting shutdown\.graceMs, got -5\)/)
  })
})
