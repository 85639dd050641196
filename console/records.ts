// Medical records: the list (newest first, live through the service's realtime events), create and edit forms
// generated from the OpenAPI document's per-type schemas (GET /openapi.json), sharing and finalize.
import { client, state, listen, debounce, organizationName, type Cleanup } from './api'
import { h, field, formError, showErrors, clearErrors, replace, when } from './dom'
import type {
  MedicalRecord,
  MedicalRecordData,
  MedicalRecordQuery
} from '../src/services/medical-records/medical-records.shared'

/** One element of a record's `permissions` (who else may read, write or share it). */
type Permission = NonNullable<MedicalRecord['permissions']>[number]

interface Schema {
  type?: string
  properties?: Record<string, Schema>
  required?: string[]
  enum?: string[]
  const?: unknown
  items?: Schema
  anyOf?: Schema[]
  $ref?: string
}

let documentPromise: Promise<any> | undefined
const openApi = () => (documentPromise ??= fetch('/openapi.json').then((response) => response.json()))

/** Each record type's create schema and patch schema, from the OpenAPI document. */
const typeSchemas = async () => {
  const schemas = (await openApi()).components.schemas
  const byType = new Map<string, { data: Schema; patch?: Schema }>()
  for (const data of schemas.MedicalRecordsData.anyOf as Schema[])
    byType.set(String(data.properties?.type?.const), { data })
  const patches = (schemas.MedicalRecordsPatchFields.anyOf ?? []) as Schema[]
  const types = [...byType.keys()]
  patches.forEach((patch, index) => {
    const entry = byType.get(types[index])
    if (entry) entry.patch = patch
  })
  return byType
}

const sharedFields = [
  'facility',
  'patient',
  'account',
  'encounter',
  'provider',
  'providerFee',
  'providerFeeType',
  'originalCreationAt',
  'attachmentURLs'
]
const skipped = new Set(['type', 'permissions', 'finalize', 'done'])
const longText =
  /^(notes|description|text|report|instructions|remarks|diagnosis|treatment|complications|hx|cc|ss|dx)$/

type Kind = 'text' | 'textarea' | 'number' | 'boolean' | 'select' | 'list' | 'json'
const kindOf = (name: string, schema: Schema): Kind => {
  if (schema.enum) return 'select'
  if (schema.type === 'string') return longText.test(name) ? 'textarea' : 'text'
  if (schema.type === 'number' || schema.type === 'integer') return 'number'
  if (schema.type === 'boolean') return 'boolean'
  if (schema.type === 'array' && schema.items?.type === 'string') return 'list'
  return 'json'
}

const localDateTime = (ms: number) => {
  const date = new Date(ms - new Date(ms).getTimezoneOffset() * 60000)
  return date.toISOString().slice(0, 16)
}

const label = (name: string) =>
  name
    .replace(/([A-Z]+)/g, (part) => ` ${part.length > 1 ? part : part.toLowerCase()}`)
    .replace(/^./, (c) => c.toUpperCase())

const control = (name: string, schema: Schema, required: boolean, value: unknown) => {
  const kind = kindOf(name, schema)
  switch (kind) {
    case 'select':
      return h(
        'select',
        {},
        required ? null : h('option', { value: '' }, '—'),
        (schema.enum ?? []).map((option) =>
          h('option', { value: option, selected: value === option }, option)
        )
      )
    case 'textarea':
      return h('textarea', { rows: 2, value: value ?? '' })
    case 'number':
      // Timestamps (…At) are chosen as a local date and time, sent as milliseconds since 1970.
      if (name.endsWith('At'))
        return h('input', {
          type: 'datetime-local',
          value: typeof value === 'number' ? localDateTime(value) : ''
        })
      return h('input', { type: 'number', step: 'any', value: value ?? '' })
    case 'boolean':
      return h('input', { type: 'checkbox', checked: value === true })
    case 'list':
      return h('input', { type: 'text', value: Array.isArray(value) ? value.join(', ') : '' })
    case 'json':
      return h('textarea', {
        rows: 2,
        class: 'mono',
        value: value === undefined ? '' : JSON.stringify(value)
      })
    default:
      return h('input', { type: 'text', value: value ?? '' })
  }
}

/** Reads a generated form into a body; empty fields are left out. A JSON field that does not parse is a local error. */
const readForm = (form: HTMLElement, schema: Schema) => {
  const body: Record<string, unknown> = {}
  const problems: Array<{ field: string; message: string }> = []
  for (const [name, fieldSchema] of Object.entries(schema.properties ?? {})) {
    const input = form.querySelector<HTMLInputElement>(`[name="${name}"]`)
    if (!input || skipped.has(name)) continue
    const kind = kindOf(name, fieldSchema)
    if (kind === 'boolean') {
      if (input.checked) body[name] = true
      continue
    }
    const raw = input.value.trim()
    if (raw === '') continue
    if (kind === 'number')
      body[name] = input.type === 'datetime-local' ? new Date(raw).getTime() : Number(raw)
    else if (kind === 'list')
      body[name] = raw
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
    else if (kind === 'json') {
      try {
        body[name] = JSON.parse(raw)
      } catch {
        problems.push({ field: name, message: 'must be JSON' })
      }
    } else body[name] = raw
  }
  return { body, problems }
}

const facilitySelect = (value: string) =>
  h(
    'select',
    {},
    h('option', { value: '' }, '—'),
    state.organizations.map((o) => h('option', { value: o.id, selected: o.id === value }, o.name))
  )

/** The generated fields of one type: its own first, then the shared ones (facility and patient shown, the rest folded). */
const fieldsFor = (schema: Schema, values: Record<string, any>, creating: boolean) => {
  const required = new Set(schema.required ?? [])
  const own: HTMLElement[] = []
  const shared: HTMLElement[] = []
  const top: HTMLElement[] = []
  for (const [name, fieldSchema] of Object.entries(schema.properties ?? {})) {
    if (skipped.has(name)) continue
    const isRequired = creating && required.has(name)
    const input =
      name === 'facility'
        ? facilitySelect(values.facility ?? '')
        : control(name, fieldSchema, isRequired, values[name])
    if (isRequired) input.setAttribute('aria-required', 'true')
    const kind = kindOf(name, fieldSchema)
    const hint = kind === 'list' ? 'comma-separated' : kind === 'json' ? 'JSON' : undefined
    const element = field(`${label(name)}${isRequired ? ' *' : ''}`, input, name, hint)
    if (kind === 'boolean') element.classList.add('check')
    if (name === 'facility' || name === 'patient') top.push(element)
    else if (sharedFields.includes(name)) shared.push(element)
    else own.push(element)
  }
  return [...top, ...own, shared.length ? h('details', {}, h('summary', {}, 'More fields'), shared) : null]
}

/** The first of the types' headline fields the record has (each record type has its own). */
const summaryOf = (record: MedicalRecord) => {
  const fields: Record<string, unknown> = record
  return (
    fields.name ??
    fields.title ??
    fields.text ??
    fields.milestone ??
    fields.diagnosis ??
    fields.medicalCondition ??
    fields.hospitalName ??
    fields.notes ??
    fields.subtype ??
    ''
  )
}

/** The sharing editor of a record: its permissions elements, add one (organization or account), remove one. */
const sharingEditor = (record: MedicalRecord, done: () => void) => {
  const list = h('ul', { class: 'plain' })
  const permissions: Permission[] = Array.isArray(record.permissions) ? [...record.permissions] : []
  const form: HTMLFormElement = h('form', { class: 'sharing', novalidate: true, 'aria-label': 'Sharing' })
  const save = async (next: Permission[]) => {
    clearErrors(form)
    try {
      await client.service('medical-records').patch(record.id, { permissions: next })
      done()
    } catch (error) {
      showErrors(form, error)
    }
  }
  const describe = (p: Permission) =>
    `${p.organization ? `members of ${organizationName(p.organization)}` : `account ${p.uid}`}${p.roles?.length ? ` with role ${p.roles.join('/')}` : ''}${p.privileges?.length ? ` with privilege ${p.privileges.join('/')}` : ''}: read${p.write ? ', write' : ''}${p.share ? ', share' : ''}`
  permissions.forEach((p, index) =>
    list.appendChild(
      h(
        'li',
        {},
        describe(p),
        ' ',
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            onclick: () => save(permissions.filter((_, i) => i !== index))
          },
          'Stop sharing'
        )
      )
    )
  )
  if (permissions.length === 0) list.appendChild(h('li', {}, 'Not shared: only its creator reads it.'))
  const who = h(
    'select',
    {},
    h('option', { value: '' }, 'an account (id below)'),
    state.organizations.map((o) => h('option', { value: o.id }, `members of ${o.name}`))
  )
  const uidInput = h('input', { type: 'text' })
  const roles = h('input', { type: 'text' })
  const write = h('input', { type: 'checkbox' })
  const share = h('input', { type: 'checkbox' })
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const element: Permission = who.value ? { organization: who.value } : { uid: uidInput.value.trim() }
    const roleList = roles.value
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean)
    if (roleList.length) element.roles = roleList
    if (write.checked) element.write = true
    if (share.checked) element.share = true
    void save([...permissions, element])
  })
  form.append(
    h('h4', {}, 'Shared with'),
    list,
    formError(),
    field('Share with', who, 'permissions'),
    field('Account id', uidInput, 'uid'),
    field('Only roles (comma-separated, optional)', roles, 'roles'),
    h('div', { class: 'field check' }, h('label', {}, write, ' may change it')),
    h('div', { class: 'field check' }, h('label', {}, share, ' may share it')),
    h('button', { type: 'submit' }, 'Share')
  )
  return form
}

export const renderRecords = async (root: HTMLElement): Promise<Cleanup> => {
  const schemas = await typeSchemas()
  const types = [...schemas.keys()]
  const patientFilter = h('input', { type: 'text', value: '' })
  const facilityFilter = facilitySelect('')
  const list = h('ol', { id: 'records', class: 'records', 'aria-live': 'polite' })
  const count = h('p', { class: 'muted', id: 'records-count' })
  const editor = h('div', { id: 'record-editor' })

  const load = async () => {
    const query: MedicalRecordQuery = { $sort: { createdAt: -1 }, $limit: 100 }
    if (patientFilter.value.trim()) query.patient = patientFilter.value.trim()
    if (facilityFilter.value) query.facility = facilityFilter.value
    try {
      const page = await client.service('medical-records').find({ query })
      count.textContent = `${page.total} record${page.total === 1 ? '' : 's'}`
      replace(list, page.data.map(row))
    } catch (error: any) {
      count.textContent = error?.message ?? String(error)
    }
  }
  const refresh = debounce(load)

  const row = (record: MedicalRecord) =>
    h(
      'li',
      { 'data-id': record.id, 'data-type': record.type },
      h(
        'div',
        {},
        h('strong', {}, record.type),
        ' ',
        h('span', { class: 'summary' }, String(summaryOf(record))),
        record.finalizedAt ? h('span', { class: 'badge' }, 'finalized') : null
      ),
      h(
        'div',
        { class: 'muted' },
        `${when(record.createdAt)} · facility ${organizationName(record.facility) || '—'} · patient ${record.patient === state.account?.id ? 'you' : (record.patient ?? '—')}`,
        record.permissions?.length ? ' · shared' : ''
      ),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'secondary small', onclick: () => openEditor(record) }, 'Edit'),
        record.finalizedAt
          ? null
          : h(
              'button',
              { type: 'button', class: 'secondary small', onclick: () => finalize(record) },
              'Finalize'
            ),
        h(
          'button',
          { type: 'button', class: 'secondary small danger', onclick: () => remove(record) },
          'Remove'
        )
      )
    )

  const finalize = async (record: MedicalRecord) => {
    try {
      await client.service('medical-records').patch(record.id, { finalize: true })
    } catch (error: any) {
      alert(error?.message ?? String(error))
    }
  }
  const remove = async (record: MedicalRecord) => {
    if (!confirm(`Remove this ${record.type} record?`)) return
    try {
      await client.service('medical-records').remove(record.id)
    } catch (error: any) {
      alert(error?.message ?? String(error))
    }
  }

  const openEditor = (record: MedicalRecord) => {
    const schema = schemas.get(record.type)?.patch ?? schemas.get(record.type)!.data
    const form: HTMLFormElement = h('form', {
      id: 'edit-form',
      novalidate: true,
      'aria-labelledby': 'edit-title'
    })
    const fields = h('div', {}, fieldsFor(schema, record, false))
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form)
      const { body, problems } = readForm(form, schema)
      if (problems.length) return showErrors(form, { message: 'Some fields need fixing', errors: problems })
      try {
        await client.service('medical-records').patch(record.id, body)
        replace(editor)
      } catch (error) {
        showErrors(form, error)
      }
    })
    form.append(
      h('h3', { id: 'edit-title' }, `Edit ${record.type}`),
      formError(),
      fields,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit' }, 'Save changes'),
        h('button', { type: 'button', class: 'secondary', onclick: () => replace(editor) }, 'Close')
      )
    )
    replace(
      editor,
      h(
        'section',
        { class: 'card' },
        form,
        sharingEditor(record, () => replace(editor))
      )
    )
    form.querySelector<HTMLElement>('input, select, textarea')?.focus()
  }

  // The create form: a type, then that type's fields.
  const typeSelect = h(
    'select',
    { id: 'record-type' },
    types.map((type) => h('option', { value: type }, type))
  )
  const createFields = h('div', {})
  const shareWithFacility = h('input', { type: 'checkbox', id: 'share-facility' })
  const showFields = () =>
    replace(
      createFields,
      fieldsFor(
        schemas.get(typeSelect.value)!.data,
        { facility: state.current, patient: state.account?.id },
        true
      )
    )
  typeSelect.addEventListener('change', showFields)
  const create: HTMLFormElement = h('form', {
    id: 'record-form',
    novalidate: true,
    'aria-labelledby': 'create-title'
  })
  create.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(create)
    const schema = schemas.get(typeSelect.value)!.data
    const { body, problems } = readForm(create, schema)
    if (problems.length) return showErrors(create, { message: 'Some fields need fixing', errors: problems })
    body.type = typeSelect.value
    if (shareWithFacility.checked && body.facility) body.permissions = [{ organization: body.facility }]
    try {
      // (the body is built at run time from the chosen type's OpenAPI schema; the server validates it)
      await client.service('medical-records').create(body as MedicalRecordData)
      showFields()
      const status = create.querySelector('.form-status')
      if (status) status.textContent = `Created the ${body.type} record.`
    } catch (error) {
      showErrors(create, error)
    }
  })
  create.append(
    h('h3', { id: 'create-title' }, 'New record'),
    formError(),
    field('Type', typeSelect, 'type'),
    createFields,
    h(
      'div',
      { class: 'field check' },
      h('label', { for: 'share-facility' }, shareWithFacility, ' Share with the facility’s members (read)')
    ),
    h('button', { type: 'submit' }, 'Create record'),
    h('p', { class: 'form-status', role: 'status' })
  )
  showFields()

  const filters = h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Filter records',
      onsubmit: (event: Event) => {
        event.preventDefault()
        void load()
      }
    },
    field('Patient (account id)', patientFilter, 'patient-filter'),
    field('Facility', facilityFilter, 'facility-filter'),
    h('button', { type: 'submit', class: 'secondary' }, 'Show')
  )
  facilityFilter.addEventListener('change', () => void load())

  replace(
    root,
    h('h2', {}, 'Medical records'),
    h(
      'div',
      { class: 'columns' },
      h('section', { 'aria-label': 'Record list' }, filters, count, list),
      h('div', {}, editor, h('section', { class: 'card' }, create))
    )
  )
  await load()
  return listen('medical-records', ['created', 'patched', 'updated', 'removed'], refresh)
}
