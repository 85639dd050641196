// A patient's medical records that the signed-in person may read, newest first, filtered by type (readable
// labels), live: a record created or changed elsewhere shows without a reload. Each opens to its fields.
import { useState } from 'preact/hooks'
import { useLive, when } from '../../lib/api'
import { EmptyState, Field } from '../../components'
import type { MedicalRecordAnswer } from '../../../src/services/medical-records/medical-records.shared'
import { recordSummary, recordTypeLabel, recordTypeList, recordTypes, type FieldDef } from './record-types'

const shown = (def: FieldDef, value: unknown): string => {
  if (value === undefined || value === null || value === '') return ''
  if (def.kind === 'date' && typeof value === 'number') return new Date(value).toLocaleDateString()
  if (def.kind === 'yesno') return value ? 'Yes' : 'No'
  if (def.kind === 'select') return def.options?.find(([v]) => v === value)?.[1] ?? String(value)
  if (def.kind === 'list' && Array.isArray(value)) return value.join(', ')
  if (def.kind === 'rows' && Array.isArray(value))
    return value
      .map((row) =>
        (def.columns ?? [])
          .map((c) => (row && typeof row === 'object' ? (row as Record<string, unknown>)[c.name] : undefined))
          .filter((v) => v !== undefined && v !== '')
          .join(' · ')
      )
      .join('; ')
  if (def.kind === 'pairs' && value && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join('; ')
  return String(value)
}

const valueAt = (record: Record<string, unknown>, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (node, part) =>
        node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined,
      record
    )

function RecordItem({ record }: { record: MedicalRecordAnswer }) {
  const fields = record as unknown as Record<string, unknown>
  const def = (recordTypes as Record<string, (typeof recordTypes)[keyof typeof recordTypes] | undefined>)[
    record.type
  ]
  const facts = (def?.fields ?? [])
    .map((f) => [f.label, shown(f, valueAt(fields, f.name))] as const)
    .filter(([, v]) => v !== '')
  return (
    <li data-type={record.type} data-id={record.id}>
      <p class="record-head">
        <strong>{recordTypeLabel(record.type)}</strong>
        {record.finalizedAt ? <span class="badge">Finalized</span> : null}
        <span class="muted"> · {when(record.createdAt)}</span>
      </p>
      {recordSummary(fields) && <p class="record-summary">{recordSummary(fields)}</p>}
      {facts.length > 0 && (
        <details>
          <summary>All fields</summary>
          <dl class="facts">
            {facts.map(([label, value]) => (
              <>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </>
            ))}
          </dl>
        </details>
      )}
      {record.attachments && record.attachments.length > 0 && (
        <p class="muted">Files: {record.attachments.map((a) => a.filename).join(', ')}</p>
      )}
    </li>
  )
}

export function RecordsTab({ patient, facility }: { patient: string; facility: string }) {
  const [type, setType] = useState('')
  const found = useLive<MedicalRecordAnswer>('medical-records', {
    patient,
    facility,
    ...(type ? { type } : {}),
    $sort: { createdAt: -1 },
    $limit: 100
  })
  return (
    <section aria-labelledby="records-title">
      <h2 id="records-title">Records</h2>
      <div class="filters">
        <Field
          as="select"
          label="Show"
          name="type"
          id="records-type"
          value={type}
          onChange={(event) => setType(event.currentTarget.value)}
        >
          <option value="">Every type</option>
          {recordTypeList.map((t) => (
            <option value={t}>{recordTypes[t].label}</option>
          ))}
        </Field>
      </div>
      <p class="muted" id="records-count" role="status">
        {found.loading
          ? 'Loading…'
          : `${found.total} ${found.total === 1 ? 'record' : 'records'}, newest first`}
      </p>
      {found.error && (
        <p class="form-error" role="alert">
          {found.error}
        </p>
      )}
      {!found.loading && found.data.length === 0 && !found.error ? (
        <EmptyState
          title={
            type
              ? `No ${recordTypeLabel(type).toLowerCase()} records you can read.`
              : 'No records you can read.'
          }
        >
          <p>
            Records appear here when they are shared with you or this facility. Add one in the “New record”
            tab.
          </p>
        </EmptyState>
      ) : (
        <ul class="records" id="records">
          {found.data.map((record) => (
            <RecordItem record={record} key={record.id} />
          ))}
        </ul>
      )}
    </section>
  )
}
