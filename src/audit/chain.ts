// The audit trail's hash chain: one global chain over every audit event, in `seq` order. Each event's `hash`
// is sha256 over a canonical JSON of its fields and `prevHash` (the previous event's hash), so editing,
// removing or reordering a stored event breaks the chain at that event (GET /audit-events/verify).
// The fields of privilege and configuration events (`account`, `before`, `after`) were added later: they are hashed
// after the original ones and only when present, so events stored before them keep their hashes.
import { createHash } from 'node:crypto'
import type { AuditAction, AuditVia, ChangeFields } from '../schema/audit'

export { AUDIT_ACTIONS, type AuditAction, type AuditVia, type ChangeFields } from '../schema/audit'

/** An audit event before it is chained (what the recorder knows about one access). */
export interface AuditEntry {
  at: number
  actor: string | null
  /** What a failed login tried (the email), when there is no actor. */
  subject?: string
  action: AuditAction
  service: string
  ids: string[]
  patient?: string
  facility?: string
  outcome: 'allowed' | 'denied'
  status: number
  ip?: string
  userAgent?: string
  requestId?: string
  /** The transport the data left by (absent on events recorded before it was). */
  via?: AuditVia
  /** The webhook a delivery went to (`via: 'webhook'`). */
  webhook?: string
  /** Privilege and configuration events: the account whose rights or settings changed. */
  account?: string
  /** Privilege and configuration events: the changed fields before and after the change. */
  before?: ChangeFields
  after?: ChangeFields
}

/** A stored audit event: the entry, its place in the chain and its hash. */
export interface AuditEvent extends AuditEntry {
  id: string
  seq: number
  prevHash: string
  hash: string
}

/** The `prevHash` of the very first event. */
export const GENESIS_HASH = '0'.repeat(64)

// Every hashed field, in a fixed order; absent optional fields hash as null, so the JSON is canonical.
const HASHED_FIELDS = [
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
] as const

// Fields hashed after those, each only when the event has it (so older events, which have none, hash as before).
const OPTIONAL_FIELDS = ['via', 'webhook', 'account', 'before', 'after'] as const

// `[["seq",<value>],["at",<value>],…]`: the JSON of the (field, value) pairs, written piece by piece (the same
// text as JSON.stringify of the pairs, without building them on every append).
const OPENINGS = HASHED_FIELDS.map((field, i) => `${i === 0 ? '[' : '],'}["${field}",`)

// JSON with the keys of every object sorted, so a document's hash does not depend on the key order a store keeps.
const sortedJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((item) => sortedJson(item ?? null)).join(',')}]`
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${sortedJson(record[key])}`).join(',')}}`
  }
  return JSON.stringify(value ?? null)
}

/** The canonical JSON an event's hash is computed over. */
export const canonicalJson = (event: Record<string, unknown>) => {
  let text = ''
  for (let i = 0; i < HASHED_FIELDS.length; i++)
    text += OPENINGS[i] + JSON.stringify(event[HASHED_FIELDS[i]] ?? null)
  for (const field of OPTIONAL_FIELDS) {
    if (event[field] !== undefined && event[field] !== null)
      text += `],["${field}",${sortedJson(event[field])}`
  }
  return text + ']]'
}

/** sha256 (hex) of the event's canonical JSON, `prevHash` included. */
export const hashEvent = (event: Record<string, unknown>) =>
  createHash('sha256').update(canonicalJson(event)).digest('hex')

/** The end of the chain: the last event's `seq`, `hash` and `at` (seq 0 and GENESIS_HASH before the first). */
export interface ChainTail {
  seq: number
  hash: string
  at: number
}

/**
 * Chains entries after `tail`: consecutive `seq`s, each `prevHash` the previous `hash`. Time never runs backwards
 * along the chain: an entry stamped just before one already appended (calls finish out of order) takes its
 * predecessor's time, so newest-first by `seq` is newest-first by `at`. (Used by the writer thread and by the
 * in-process writer alike.)
 */
export const chainEntries = (tail: ChainTail, entries: AuditEntry[]): Omit<AuditEvent, 'id'>[] => {
  let { seq, hash, at } = tail
  return entries.map((entry) => {
    seq += 1
    at = Math.max(entry.at, at)
    const doc = { ...entry, at, seq, prevHash: hash, hash: '' }
    doc.hash = hashEvent(doc)
    hash = doc.hash
    return doc
  })
}
