// The building blocks every mapping module uses: ids and references, the one extension base URL, element paths,
// and the encoding of a field that has no FHIR home (an extension that import reads back exactly).
import { createHash } from 'node:crypto'
import type { FhirContext, FhirResource } from '../types'

/** The canonical root of everything this server defines for FHIR: fixed (not per deployment), so a bundle exported
 *  by one server imports into another with every extension understood. */
export const CANONICAL = 'https://clinic-backend.dev/fhir'
/** Extension URLs: `<EXTENSION_BASE>/<field>` (the record field's name). */
export const EXTENSION_BASE = `${CANONICAL}/StructureDefinition`
/** Code systems: `<CODE_SYSTEM_BASE>/<record type>` for fields placed in components/sections, and `record-type`. */
export const CODE_SYSTEM_BASE = `${CANONICAL}/CodeSystem`
/** `meta.tag` system naming the record type a resource was made from. */
export const RECORD_TYPE_SYSTEM = `${CODE_SYSTEM_BASE}/record-type`
export const ICD10_SYSTEM = 'http://hl7.org/fhir/sid/icd-10'
export const UCUM = 'http://unitsofmeasure.org'

export type Json = unknown
export type Obj = Record<string, unknown>
export interface Extension {
  url: string
  [value: string]: unknown
}

export const isObj = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

// ---------------------------------------------------------------------------------------------------------
// Ids and references

const FHIR_ID = /^[A-Za-z0-9.-]{1,64}$/

/**
 * The FHIR id of a document: its own id joined with the parts' names (`<id>-<part>...`) when that is a valid FHIR
 * id (letters, digits, `-`, `.`; at most 64), else the first 64 hex digits of its SHA-256. Stable: the same document
 * always gets the same id; ids of this server (24 hex digits) are used as they are.
 */
export const fhirId = (...parts: (string | number)[]): string => {
  const joined = parts.map(String).join('-')
  return FHIR_ID.test(joined) ? joined : createHash('sha256').update(joined).digest('hex')
}

/** A Reference to a document of this server; with the id itself as identifier when the FHIR id had to be hashed. */
export const refTo = (type: string, id: string) => {
  const fid = fhirId(id)
  return fid === id
    ? { reference: `${type}/${fid}` }
    : { reference: `${type}/${fid}`, identifier: { value: id } }
}

/** The server id a Reference names: its identifier's value, else the id of its literal `Type/id`. */
export const idOfReference = (reference: unknown): string | undefined => {
  if (!isObj(reference)) return undefined
  if (isObj(reference.identifier) && typeof reference.identifier.value === 'string')
    return reference.identifier.value
  return typeof reference.reference === 'string' ? reference.reference.split('/').pop() : undefined
}

/** `identifier: [{ system: <systemBase>/<kind>, value: <server id> }]`. */
export const identifier = (ctx: FhirContext, kind: string, id: string) => [
  { system: `${ctx.systemBase}/${kind}`, value: id }
]

/** An ISO instant of a millisecond timestamp, when it is one (an integer within the dates JavaScript can print). */
export const isoOf = (ms: unknown): string | undefined => {
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < -62135596800000 || ms > 253402300799999)
    return undefined
  return new Date(ms).toISOString()
}
/** Milliseconds of a FHIR dateTime/instant (a date alone: its UTC midnight), or undefined. */
export const msOf = (value: unknown): number | undefined => {
  if (typeof value !== 'string') return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : ms
}

/** meta: lastUpdated from updatedAt, else createdAt; and the record-type tag when given. */
export const metaOf = (doc: { updatedAt?: unknown; createdAt?: unknown }, recordType?: string) => {
  const lastUpdated = isoOf(doc.updatedAt) ?? isoOf(doc.createdAt)
  return {
    ...(lastUpdated ? { lastUpdated } : {}),
    ...(recordType ? { tag: [{ system: RECORD_TYPE_SYSTEM, code: recordType }] } : {})
  }
}

export const recordTypeTag = (resource: FhirResource): string | undefined =>
  resource.meta?.tag?.find((tag) => tag.system === RECORD_TYPE_SYSTEM)?.code

/** A FHIR string must hold at least one character: empty strings have no FHIR form and are left out. */
export const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined

const isEmpty = (value: unknown) =>
  (Array.isArray(value) && value.length === 0) || (isObj(value) && Object.keys(value).length === 0)

/** Removes undefined members, and the empty arrays and objects FHIR forbids, recursively. */
export const compact = <T>(value: T): T => {
  if (Array.isArray(value))
    return value.map(compact).filter((member) => member !== undefined && !isEmpty(member)) as T
  if (isObj(value)) {
    const out: Obj = {}
    for (const [key, member] of Object.entries(value)) {
      const inner = compact(member)
      if (inner !== undefined && !isEmpty(inner)) out[key] = inner
    }
    return out as T
  }
  return value
}

// ---------------------------------------------------------------------------------------------------------
// Element paths: `a.b` members, `a[]` the array's first element (set: appended), `a#label` the array element whose
// `id` is `label` (created when missing). Element ids label repeated elements (notes, components, sections) so
// import finds each field's element again.

const segmentOf = (segment: string) => {
  const labelled = segment.match(/^([^#[]+)#(.+)$/)
  if (labelled) return { name: labelled[1], label: labelled[2], array: true }
  if (segment.endsWith('[]')) return { name: segment.slice(0, -2), array: true }
  return { name: segment, array: false }
}

export const setPath = (target: Obj, path: string, value: unknown): void => {
  const segments = path.split('.')
  let node: Obj = target
  segments.forEach((raw, position) => {
    const last = position === segments.length - 1
    const { name, label, array } = segmentOf(raw)
    if (!array) {
      if (last) node[name] = value
      else {
        if (!isObj(node[name])) node[name] = {}
        node = node[name] as Obj
      }
      return
    }
    if (!Array.isArray(node[name])) node[name] = []
    const list = node[name] as unknown[]
    if (label !== undefined) {
      let element = list.find((item) => isObj(item) && item.id === label) as Obj | undefined
      if (!element) {
        element = { id: label }
        list.push(element)
      }
      if (last) Object.assign(element, value)
      else node = element
      return
    }
    if (last) list.push(value)
    else {
      const element: Obj = {}
      list.push(element)
      node = element
    }
  })
}

export const getPath = (source: unknown, path: string): unknown => {
  let node: unknown = source
  for (const raw of path.split('.')) {
    if (!isObj(node)) return undefined
    const { name, label, array } = segmentOf(raw)
    const member = node[name]
    if (!array) node = member
    else if (!Array.isArray(member)) return undefined
    else if (label !== undefined) node = member.find((item) => isObj(item) && item.id === label)
    else node = member[0]
  }
  return node
}

/** A FHIR path for messages: `note#description.text` → `note.where(id='description').text`, `a[]` → `a[0]`. */
export const fhirPath = (resourceType: string, path: string) =>
  `${resourceType}.${path
    .split('.')
    .map((raw) => {
      const { name, label, array } = segmentOf(raw)
      return label !== undefined ? `${name}.where(id='${label}')` : array ? `${name}[0]` : name
    })
    .join('.')}`

// ---------------------------------------------------------------------------------------------------------
// Extensions: a field with no FHIR home. The value type follows the record schema's field type:
//   string → valueString; boolean → valueBoolean; number → valueDecimal (a timestamp field, named `...At` or
//   `...Date`, → valueDateTime when it is a whole millisecond instant); list of strings → one extension per element,
//   in order; anything else (objects, lists of objects) → valueString holding the JSON text.

export type FieldKind = 'string' | 'number' | 'time' | 'boolean' | 'strings' | 'json'

export const extensionUrl = (field: string) => `${EXTENSION_BASE}/${field}`

export const encodeExtension = (field: string, kind: FieldKind, value: unknown): Extension[] => {
  const url = extensionUrl(field)
  if (value === undefined) return []
  switch (kind) {
    case 'string':
      return typeof value === 'string' && value !== '' ? [{ url, valueString: value }] : []
    case 'boolean':
      return typeof value === 'boolean' ? [{ url, valueBoolean: value }] : []
    case 'time': {
      const iso = isoOf(value)
      if (iso) return [{ url, valueDateTime: iso }]
      return typeof value === 'number' ? [{ url, valueDecimal: value }] : []
    }
    case 'number':
      return typeof value === 'number' ? [{ url, valueDecimal: value }] : []
    case 'strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '')
        ? value.map((item) => ({ url, valueString: item }))
        : [{ url, valueString: JSON.stringify(value) }]
    default:
      return [{ url, valueString: JSON.stringify(value) }]
  }
}

const parseJson = (textValue: unknown): unknown => {
  if (typeof textValue !== 'string') return undefined
  try {
    return JSON.parse(textValue)
  } catch {
    return textValue
  }
}

export const decodeExtension = (field: string, kind: FieldKind, extensions: unknown): unknown => {
  if (!Array.isArray(extensions)) return undefined
  const url = extensionUrl(field)
  const mine = extensions.filter((ext): ext is Obj => isObj(ext) && ext.url === url)
  if (mine.length === 0) return undefined
  const first = mine[0]
  switch (kind) {
    case 'string':
      return first.valueString
    case 'boolean':
      return first.valueBoolean
    case 'time':
      return first.valueDateTime !== undefined ? msOf(first.valueDateTime) : first.valueDecimal
    case 'number':
      return first.valueDecimal ?? first.valueInteger
    case 'strings': {
      if (mine.length === 1) {
        const parsed = parseJson(first.valueString)
        if (Array.isArray(parsed)) return parsed
      }
      return mine.map((ext) => ext.valueString)
    }
    default:
      return parseJson(first.valueString)
  }
}

/** The kind of a record field from its JSON schema (typebox), for the extension encoding. */
export const kindOfSchema = (field: string, schema: unknown): FieldKind => {
  const type = isObj(schema) ? schema.type : undefined
  if (type === 'string') return 'string'
  if (type === 'boolean') return 'boolean'
  if (type === 'number' || type === 'integer') return /(At|Date)$/.test(field) ? 'time' : 'number'
  if (type === 'array' && isObj(schema) && isObj(schema.items) && schema.items.type === 'string')
    return 'strings'
  return 'json'
}

/** An xhtml narrative div holding `value` as text. */
export const narrative = (value: string) => ({
  status: 'generated',
  div: `<div xmlns="http://www.w3.org/1999/xhtml">${value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')}</div>`
})
/** The text of a narrative made by `narrative` (tags removed, entities decoded). */
export const narrativeText = (value: unknown): string | undefined => {
  const div = isObj(value) ? value.div : undefined
  if (typeof div !== 'string') return undefined
  return div
    .replace(/^<div[^>]*>/, '')
    .replace(/<\/div>$/, '')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
}
