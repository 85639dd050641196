// The form of a new medical record for one patient: the type (by its label), then that type's fields laid out
// for people (record-types.ts) — lists as rows added and removed, yes/no as a choice, dates as date inputs — and
// who may read it (the facility's members, the patient). The server's field errors show beside their fields.
import { useState } from 'preact/hooks'
import { client, type Organization } from '../../lib/api'
import { Field, Form } from '../../components'
import type { MedicalRecordData } from '../../../src/services/medical-records/medical-records.shared'
import type { MedicalRecordType } from '../../../src/services/medical-records/medical-records.schema'
import { recordTypeList, recordTypes, type FieldDef } from './record-types'

let rowIds = 0

/** A list field: a fieldset with one row per item, "Add" and per-row "Remove". */
function RowsField({ def }: { def: FieldDef }) {
  const [rows, setRows] = useState<number[]>([])
  const columns: FieldDef[] =
    def.kind === 'list'
      ? [{ name: '', label: def.label.replace(/s$/, ''), kind: 'text' }]
      : def.kind === 'pairs'
        ? [
            { name: 'key', label: 'Name', kind: 'text' },
            { name: 'value', label: 'Value', kind: 'text' }
          ]
        : (def.columns ?? [])
  return (
    <fieldset class="rows" data-field={def.name}>
      <legend>{def.label}</legend>
      {def.hint && <p class="hint muted">{def.hint}</p>}
      {rows.length === 0 && <p class="muted">None yet.</p>}
      {rows.map((id, index) => (
        <div class="row" key={id}>
          {columns.map((column) => (
            <Field
              label={`${column.label} ${index + 1}`}
              name={column.name ? `${def.name}.${index}.${column.name}` : `${def.name}.${index}`}
              type={column.kind === 'number' ? 'number' : 'text'}
              step={column.kind === 'number' ? 'any' : undefined}
              required={column.required}
            />
          ))}
          <button
            type="button"
            class="secondary small"
            aria-label={`Remove ${def.label.toLowerCase()} row ${index + 1}`}
            onClick={() => setRows(rows.filter((r) => r !== id))}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="secondary small" onClick={() => setRows([...rows, ++rowIds])}>
        Add {def.kind === 'list' ? def.label.replace(/s$/, '').toLowerCase() : 'a row'}
        <span class="visually-hidden"> to {def.label}</span>
      </button>
    </fieldset>
  )
}

/** One field of a record type, as its kind needs. */
function RecordField({ def }: { def: FieldDef }) {
  switch (def.kind) {
    case 'textarea':
      return (
        <Field
          as="textarea"
          label={def.label}
          name={def.name}
          rows={3}
          hint={def.hint}
          required={def.required}
        />
      )
    case 'number':
      return (
        <Field
          label={def.label}
          name={def.name}
          type="number"
          step="any"
          hint={def.hint}
          required={def.required}
        />
      )
    case 'date':
      return <Field label={def.label} name={def.name} type="date" hint={def.hint} required={def.required} />
    case 'yesno':
      return (
        <Field as="select" label={def.label} name={def.name} hint={def.hint}>
          <option value="">Not answered</option>
          <option value="yes">Yes</option>
          <option value="no">No</option>
        </Field>
      )
    case 'select':
      return (
        <Field as="select" label={def.label} name={def.name} hint={def.hint} required={def.required}>
          {!def.required && <option value="">Not given</option>}
          {(def.options ?? []).map(([value, label]) => (
            <option value={value}>{label}</option>
          ))}
        </Field>
      )
    case 'list':
    case 'rows':
    case 'pairs':
      return <RowsField def={def} />
    default:
      return <Field label={def.label} name={def.name} type="text" hint={def.hint} required={def.required} />
  }
}

const setPath = (target: Record<string, unknown>, path: string, value: unknown) => {
  const parts = path.split('.')
  let node = target
  for (const part of parts.slice(0, -1)) {
    if (!node[part] || typeof node[part] !== 'object') node[part] = {}
    node = node[part] as Record<string, unknown>
  }
  node[parts[parts.length - 1]] = value
}

/** A date input's value (YYYY-MM-DD) as the local midnight's milliseconds. */
const dateValue = (value: string) => new Date(`${value}T00:00`).getTime()

/** Reads the form into the type's create body; empty fields and rows are left out. */
export const readRecord = (data: FormData, fields: FieldDef[]) => {
  const body: Record<string, unknown> = {}
  const get = (name: string) => (data.has(name) ? String(data.get(name) ?? '').trim() : undefined)
  const indexes = (prefix: string) => {
    const found = new Set<number>()
    for (const key of data.keys()) {
      const match = key.startsWith(`${prefix}.`) ? /^(\d+)/.exec(key.slice(prefix.length + 1)) : null
      if (match) found.add(Number(match[1]))
    }
    return [...found].sort((a, b) => a - b)
  }
  for (const def of fields) {
    if (def.kind === 'list') {
      const items = indexes(def.name)
        .map((i) => get(`${def.name}.${i}`) ?? '')
        .filter(Boolean)
      if (items.length) setPath(body, def.name, items)
      continue
    }
    if (def.kind === 'rows' || def.kind === 'pairs') {
      const rows = indexes(def.name).map((i) => {
        const row: Record<string, unknown> = {}
        const columns = def.kind === 'pairs' ? [{ name: 'key' }, { name: 'value' }] : (def.columns ?? [])
        for (const column of columns) {
          const raw = get(`${def.name}.${i}.${column.name}`) ?? ''
          if (raw === '') continue
          row[column.name] = 'kind' in column && column.kind === 'number' ? Number(raw) : raw
        }
        return row
      })
      const filled = rows.filter((row) => Object.keys(row).length > 0)
      if (def.kind === 'pairs') {
        const object = Object.fromEntries(filled.map((row) => [String(row.key ?? ''), row.value ?? '']))
        if (filled.length) setPath(body, def.name, object)
      } else if (filled.length) setPath(body, def.name, filled)
      continue
    }
    const raw = get(def.name) ?? ''
    if (raw === '') continue
    if (def.kind === 'number') setPath(body, def.name, Number(raw))
    else if (def.kind === 'date') setPath(body, def.name, dateValue(raw))
    else if (def.kind === 'yesno') setPath(body, def.name, raw === 'yes')
    else setPath(body, def.name, raw)
  }
  return body
}

export function RecordForm({
  patient,
  facility,
  onCreated
}: {
  patient: string
  facility: Organization | undefined
  onCreated?: (type: MedicalRecordType) => void
}) {
  const [type, setType] = useState<MedicalRecordType>('allergy')
  const [saved, setSaved] = useState(0)
  const def = recordTypes[type]
  return (
    <Form
      id="record-form"
      title="New record"
      heading="h2"
      submitLabel="Save record"
      success={`Saved the ${def.label.toLowerCase()} record.`}
      onSubmit={async (data) => {
        const body: Record<string, unknown> = {
          type,
          patient,
          ...(facility ? { facility: facility.id } : {}),
          ...readRecord(data, def.fields)
        }
        const permissions: Array<{ organization?: string; uid?: string }> = []
        if (facility && data.get('shareFacility')) permissions.push({ organization: facility.id })
        if (data.get('sharePatient')) permissions.push({ uid: patient })
        if (permissions.length) body.permissions = permissions
        // (cast: the body is built field by field from the type's definition; the server validates it)
        await client.service('medical-records').create(body as unknown as MedicalRecordData)
        onCreated?.(type)
        // The type and the sharing stay chosen for the next record; the type's fields start empty again.
        setSaved((n) => n + 1)
      }}
      reset={false}
    >
      <Field
        as="select"
        label="Type of record"
        name="type"
        id="record-type"
        required
        value={type}
        onChange={(event) => setType(event.currentTarget.value as MedicalRecordType)}
      >
        {recordTypeList.map((t) => (
          <option value={t}>{recordTypes[t].label}</option>
        ))}
      </Field>
      <div key={`${type}-${saved}`} class="record-fields">
        {def.fields.map((field) => (
          <RecordField def={field} />
        ))}
      </div>
      <fieldset>
        <legend>Who can read it</legend>
        <Field
          label={`Members of ${facility?.name ?? 'this facility'}`}
          name="shareFacility"
          type="checkbox"
          defaultChecked
        />
        <Field label="The patient" name="sharePatient" type="checkbox" />
      </fieldset>
    </Form>
  )
}
