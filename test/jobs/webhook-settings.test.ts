import assert from 'node:assert/strict'
import { parseWebhookSettings } from '../../src/jobs/webhook-settings'

describe('webhook settings', () => {
  it('defaults to 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h between attempts, a 15 s timeout and 5 days before deactivation', () => {
    const settings = parseWebhookSettings({})
    assert.deepEqual(settings.retryDelays, [5, 300, 1800, 7200, 18000, 36000, 36000])
    assert.equal(settings.timeoutMs, 15000)
    assert.equal(settings.deactivateAfterMs, 5 * 24 * 3600 * 1000)
    assert.equal(settings.allowPrivate, false)
    assert.equal(settings.perWebhook, 1)
    assert.equal(settings.leaseMs, 45000)
  })

  it('reads environment strings: fractional seconds, booleans, and "none" for no retries', () => {
    const settings = parseWebhookSettings({ retryDelays: ' 0.2, 0.5 ,1', timeout: '0.3', allowPrivate: 'true', concurrency: '4' })
    assert.deepEqual(settings.retryDelays, [0.2, 0.5, 1])
    assert.equal(settings.timeoutMs, 300)
    assert.equal(settings.allowPrivate, true)
    assert.equal(settings.concurrency, 4)
    assert.deepEqual(parseWebhookSettings({ retryDelays: 'none' }).retryDelays, [])
    assert.deepEqual(parseWebhookSettings({ retryDelays: [1, 2] }).retryDelays, [1, 2])
  })

  it('refuses values that are not numbers, negative, or not whole where they must be, naming the setting', () => {
    assert.throws(() => parseWebhookSettings({ retryDelays: '5,soon' }), /retryDelays\[1\]/)
    assert.throws(() => parseWebhookSettings({ retryDelays: '-1' }), /retryDelays\[0\]/)
    assert.throws(() => parseWebhookSettings({ timeout: 0 }), /timeout/)
    assert.throws(() => parseWebhookSettings({ concurrency: 2.5 }), /concurrency/)
    assert.throws(() => parseWebhookSettings({ concurrencyPerWebhook: 0 }), /concurrencyPerWebhook/)
  })
})
