// Audit events as CSV (RFC 4180) for reviewers' reports: a header row, one row per event, CRLF line ends. A cell
// holding a comma, a quote or a line break is quoted (quotes doubled); a cell that a spreadsheet would read as a
// formula — beginning with =, +, -, @, a tab or a carriage return — gets a leading ' (CSV formula injection).
import type { AuditEvent } from './chain'

/** The columns, in order: `time` is `at` as an ISO 8601 UTC time; `ids` are space-separated; `before`/`after` JSON. */
export const CSV_COLUMNS = [
  'seq',
  'at',
  'time',
  'id',
  'actor',
  'subject',
  'account',
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
  'via',
  'webhook',
  'before',
  'after',
  'prevHash',
  'hash'
] as const

const FORMULA_START = /^[=+\-@\t\r]/
const NEEDS_QUOTES = /[",\r\n]/

/** One cell: formula-guarded, then quoted when it must be. */
export const csvCell = (value: unknown): string => {
  let text =
    value === undefined || value === null
      ? ''
      : typeof value === 'string'
        ? value
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value)
  if (FORMULA_START.test(text)) text = `'${text}`
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

const cellsOf = (event: Partial<AuditEvent>): unknown[] =>
  CSV_COLUMNS.map((column) => {
    if (column === 'time') return typeof event.at === 'number' ? new Date(event.at).toISOString() : ''
    if (column === 'ids') return Array.isArray(event.ids) ? event.ids.join(' ') : ''
    return event[column]
  })

/** The CSV text of `events`, header row first. */
export const auditEventsCsv = (events: Partial<AuditEvent>[]) =>
  [CSV_COLUMNS.join(','), ...events.map((event) => cellsOf(event).map(csvCell).join(','))].join('\r\n') +
  '\r\n'
