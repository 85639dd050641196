import assert from 'node:assert/strict'
import defaults from '../../config/default.json'
import { deriveWebhookSettings } from '../../src/jobs/webhook-settings'
import { checkConfiguration } from '../../src/configuration'

describe('webhook settings', () => {
  it('defaults to 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h between attempts, a 15 s timeout and 5 days before deactivation', () => {
    const settings = deriveWebhookSettings(checkConfiguration(structuredClone(defaults)).webhooks)
    assert.deepEqual(
      settings.retryDelaysMs,
      [5, 300, 1800, 7200, 18000, 36000, 36000].map((seconds) => seconds * 1000)
    )
    assert.equal(settings.timeoutMs, 15000)
    assert.equal(settings.deactivateAfterMs, 5 * 24 * 3600 * 1000)
    assert.equal(settings.allowPrivate, false)
    assert.equal(settings.perWebhook, 1)
    assert.equal(settings.leaseMs, 45000)
  })
})
