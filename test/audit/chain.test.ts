// The audit chain's canonical JSON is exactly the JSON of the (field, value) pairs in the fixed order — the text
// every stored event was hashed over — for every kind of value a field holds (absent, null, numbers, arrays,
// strings with quotes, backslashes, control and non-ASCII characters).
import assert from 'node:assert/strict'
import { canonicalJson } from '../../src/audit/chain'

const FIELDS = ['seq', 'at', 'actor', 'subject', 'action', 'service', 'ids', 'patient', 'facility', 'outcome', 'status', 'ip', 'userAgent', 'requestId', 'prevHash']
const reference = (event: Record<string, unknown>) => JSON.stringify(FIELDS.map((field) => [field, event[field] ?? null]))

describe('audit chain: canonical JSON', () => {
  const events: Record<string, unknown>[] = [
    {},
    { seq: 1, at: 1767225600000, actor: null, action: 'login-failed', service: 'authentication', ids: [], outcome: 'denied', status: 401, subject: 'a@b.test', prevHash: '0'.repeat(64) },
    { seq: 42, at: 1.5, actor: 'abc', action: 'read', service: 'medical-records', ids: ['x', 'y'], patient: 'p', facility: 'f', outcome: 'allowed', status: 200, ip: '::1', userAgent: 'Mozilla/5.0 "quoted" \\ back\nline\u0001 Ünïcødé ✓ \u2028', requestId: 'r', prevHash: 'h' }
  ]
  for (const [i, event] of events.entries()) {
    it(`writes the pairs' JSON for event ${i}`, () => {
      assert.equal(canonicalJson(event), reference(event))
    })
  }
})
