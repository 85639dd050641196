// The audit chain's canonical JSON is exactly the JSON of the (field, value) pairs in the fixed order — the text
// every stored event was hashed over — for every kind of value a field holds (absent, null, numbers, arrays,
// strings with quotes, backslashes, control and non-ASCII characters). The fields of change events (`account`,
// `before`, `after`) follow, each only when present (so events stored before them keep their hashes), objects with
// their keys sorted (so the store's key order does not matter).
import assert from 'node:assert/strict'
import { canonicalJson } from '../../src/audit/chain'

const FIELDS = [
  'seq',
  'at',
  'actor',
  'subject',
  'action',
  'service',
  'ids',
  'patient',
  'facility',
  'outcome',
  'status',
  'ip',
  'userAgent',
  'requestId',
  'prevHash'
]
const OPTIONAL = ['account', 'before', 'after']
const sortKeys = (value: unknown): unknown =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, sortKeys((value as any)[key])])
      )
    : value
const reference = (event: Record<string, unknown>) =>
  JSON.stringify([
    ...FIELDS.map((field) => [field, event[field] ?? null]),
    ...OPTIONAL.filter((field) => event[field] != null).map((field) => [field, sortKeys(event[field])])
  ])

describe('audit chain: canonical JSON', () => {
  const events: Record<string, unknown>[] = [
    {},
    {
      seq: 1,
      at: 1767225600000,
      actor: null,
      action: 'login-failed',
      service: 'authentication',
      ids: [],
      outcome: 'denied',
      status: 401,
      subject: 'a@b.test',
      prevHash: '0'.repeat(64)
    },
    {
      seq: 7,
      at: 2,
      actor: 'a',
      action: 'privilege-change',
      service: 'organization-members',
      ids: ['m'],
      account: 'u',
      before: { superadmin: false, roles: ['x', 'y'] },
      after: { roles: [], superadmin: true, privileges: ['p'] },
      outcome: 'allowed',
      status: 200,
      prevHash: 'h'
    },
    {
      seq: 42,
      at: 1.5,
      actor: 'abc',
      action: 'read',
      service: 'medical-records',
      ids: ['x', 'y'],
      patient: 'p',
      facility: 'f',
      outcome: 'allowed',
      status: 200,
      ip: '::1',
      userAgent: 'Mozilla/5.0 "quoted" \\ back\nline\u0001 Ünïcødé ✓ \u2028',
      requestId: 'r',
      prevHash: 'h'
    }
  ]
  for (const [i, event] of events.entries()) {
    it(`writes the pairs' JSON for event ${i}`, () => {
      assert.equal(canonicalJson(event), reference(event))
    })
  }

  it('hashes an event stored before the change fields exactly as then (they are left out when absent)', () => {
    const old = events[1]
    assert.equal(canonicalJson(old), JSON.stringify(FIELDS.map((field) => [field, old[field] ?? null])))
  })

  it('hashes change fields whatever the key order the store kept', () => {
    const a = {
      seq: 1,
      before: { roles: ['r'], superadmin: false },
      after: { superadmin: true, roles: ['r'] }
    }
    const b = {
      seq: 1,
      before: { superadmin: false, roles: ['r'] },
      after: { roles: ['r'], superadmin: true }
    }
    assert.equal(canonicalJson(a), canonicalJson(b))
    assert.notEqual(canonicalJson(a), canonicalJson({ ...a, after: { ...a.after, superadmin: false } }))
  })
})
