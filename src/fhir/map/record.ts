// The frame every medical-record mapping shares. A record type's module declares where each of its fields goes
// (an element path, an Observation component, a Composition section) and the constant elements FHIR requires; this
// module builds the resources and reads them back. Whatever a module does not place — shared fields without a home
// (account, attachmentURLs, originalCreationAt, providerFee, providerFeeType, permissions) and any own field — goes
// into an extension (common.ts), so import restores every field exactly.
import {
  medicalRecordTypeSchemas,
  type MedicalRecordType
} from '../../services/medical-records/medical-records.schema'
import type { FhirContext, FhirResource, ImportIssue } from '../types'
export { refTo } from './common'
import {
  CODE_SYSTEM_BASE,
  UCUM,
  compact,
  decodeExtension,
  encodeExtension,
  extensionUrl,
  fhirId,
  fhirPath,
  getPath,
  identifier,
  isObj,
  isoOf,
  kindOfSchema,
  metaOf,
  msOf,
  narrative,
  narrativeText,
  refTo,
  setPath,
  type Extension,
  type FieldKind,
  type Obj
} from './common'

export type FieldMap =
  /** The value at an element path: strings as FHIR strings, `time` as a dateTime, numbers, booleans. */
  | { field: string; path: string; kind: 'string' | 'time' | 'number' | 'boolean' }
  /** An Observation component labelled with the field (code `<CODE_SYSTEM_BASE>/<type>#<field>`, id `<field>`). */
  | { field: string; component: string; kind: 'string' | 'number' | 'time' | 'boolean'; unit?: string }
  /** A Composition section labelled with the field; its narrative holds the value as text. */
  | { field: string; section: string; kind: 'string' | 'number' }

/** Import's view of the rest of the input: references resolved to step refs or ids; related resources. */
export interface Related {
  /** The step ref (a resource of the input) or the id (a resource outside it) a Reference names. */
  resolve(reference: unknown, path: string): string | undefined
  /** The resource type a Reference names (of the input's resource, else of its literal `Type/id`). */
  typeOf(reference: unknown): string | undefined
  /** The resource of the input a Reference names, which is then part of this record (not imported on its own). */
  take(reference: unknown): FhirResource | undefined
  /** Whether a Reference names this record's own resource. */
  isSelf(reference: unknown): boolean
  /** The resources of the input that satisfy `match` (and are no record of their own), taken as part of this one. */
  takeAll(match: (resource: FhirResource) => boolean): FhirResource[]
}

export type Problem = Omit<ImportIssue, 'index'>

export interface RecordMapping {
  type: MedicalRecordType
  /** The resource the record becomes (the one carrying the record-type tag). */
  resourceType: string
  /** Other resource types the record yields. */
  secondary?: string[]
  /** Element paths of the patient, encounter and provider references (none: an extension). */
  patient: string
  encounter?: string
  provider?: string
  /** `identifier` is a list on most resources, a single Identifier on a few. */
  identifier?: 'single'
  fields: FieldMap[]
  /** Constant elements FHIR requires (status, category, code), from the stored record. */
  fixed(record: Obj): Obj
  /** Fields placed by hand: build adds to the primary resource and returns the secondary ones; parse reads back. */
  custom?: {
    fields: string[]
    /** How the docs describe where each of these fields goes. */
    describe: Record<string, string>
    build(record: Obj, primary: Obj, ctx: FhirContext): FhirResource[]
    parse(primary: FhirResource, related: Related, body: Obj, problems: Problem[]): void
  }
}

const referenceFields = ['patient', 'encounter', 'provider', 'facility'] as const

export const dataFieldsOf = (type: MedicalRecordType): string[] =>
  Object.keys(medicalRecordTypeSchemas[type].data.properties).filter((field) => field !== 'type')

const fieldSchema = (type: MedicalRecordType, field: string): unknown =>
  (medicalRecordTypeSchemas[type].data.properties as Record<string, unknown>)[field]

export const kindOf = (type: MedicalRecordType, field: string): FieldKind =>
  kindOfSchema(field, fieldSchema(type, field))

export const componentCode = (type: MedicalRecordType, field: string, label: string) => ({
  coding: [{ system: `${CODE_SYSTEM_BASE}/${type}`, code: field, display: label }],
  text: label
})

/** The element a field becomes, or undefined when it has no native form (then it goes to an extension). */
const nativeValue = (type: MedicalRecordType, map: FieldMap, value: unknown): unknown => {
  if (map.kind === 'time') {
    const iso = isoOf(value)
    if (!iso) return undefined
    return 'component' in map
      ? { code: componentCode(type, map.field, map.component), valueDateTime: iso }
      : iso
  }
  if (map.kind === 'string' && (typeof value !== 'string' || value === '')) return undefined
  if (map.kind === 'number' && typeof value !== 'number') return undefined
  if (map.kind === 'boolean' && typeof value !== 'boolean') return undefined
  if ('path' in map) return value
  if ('section' in map)
    return {
      title: map.section,
      code: componentCode(type, map.field, map.section),
      text: narrative(String(value))
    }
  const valueElement =
    map.kind === 'string'
      ? { valueString: value }
      : map.kind === 'boolean'
        ? { valueBoolean: value }
        : { valueQuantity: map.unit ? { value, unit: map.unit, system: UCUM, code: map.unit } : { value } }
  return { code: componentCode(type, map.field, map.component), ...valueElement }
}

const pathOf = (map: FieldMap) =>
  'path' in map ? map.path : 'component' in map ? `component#${map.field}` : `section#${map.field}`

const readNative = (map: FieldMap, resource: FhirResource): unknown => {
  const at = getPath(resource, pathOf(map))
  if (at === undefined) return undefined
  if ('path' in map) return map.kind === 'time' ? msOf(at) : at
  if (!isObj(at)) return undefined
  if ('section' in map) {
    const textValue = narrativeText(at.text)
    if (textValue === undefined) return undefined
    return map.kind === 'number' ? Number(textValue) : textValue
  }
  if (map.kind === 'time') return msOf(at.valueDateTime)
  if (map.kind === 'string') return at.valueString
  if (map.kind === 'boolean') return at.valueBoolean
  return isObj(at.valueQuantity) ? at.valueQuantity.value : undefined
}

/** The resources of one stored record. */
export const buildRecord = (mapping: RecordMapping, record: Obj, ctx: FhirContext): FhirResource[] => {
  const { type } = mapping
  const id = String(record.id)
  const ids = identifier(ctx, 'medical-records', id)
  const primary: Obj = {
    resourceType: mapping.resourceType,
    id: fhirId(id),
    meta: metaOf(record, type),
    identifier: mapping.identifier === 'single' ? ids[0] : ids,
    ...mapping.fixed(record)
  }
  const extensions: Extension[] = []
  const placeReference = (path: string | undefined, field: string, resourceType: string) => {
    const value = record[field]
    if (typeof value !== 'string' || value === '') return
    if (path) setPath(primary, path, refTo(resourceType, value))
    else extensions.push({ url: extensionUrl(field), valueReference: refTo(resourceType, value) })
  }
  placeReference(mapping.patient, 'patient', 'Patient')
  placeReference(mapping.encounter, 'encounter', 'Encounter')
  placeReference(mapping.provider, 'provider', 'Practitioner')
  placeReference(undefined, 'facility', 'Organization')
  const handled = new Set<string>([...referenceFields, ...(mapping.custom?.fields ?? [])])
  for (const map of mapping.fields) {
    handled.add(map.field)
    const value = record[map.field]
    if (value === undefined) continue
    const element = nativeValue(type, map, value)
    if (element === undefined) extensions.push(...encodeExtension(map.field, kindOf(type, map.field), value))
    else setPath(primary, pathOf(map), element)
  }
  for (const field of dataFieldsOf(type)) {
    if (handled.has(field)) continue
    extensions.push(...encodeExtension(field, kindOf(type, field), record[field]))
  }
  const secondary = mapping.custom?.build(record, primary, ctx) ?? []
  primary.extension = [...(Array.isArray(primary.extension) ? primary.extension : []), ...extensions]
  return [compact(primary) as FhirResource, ...secondary.map((resource) => compact(resource))]
}

/** The Reference in an extension of `field` (valueReference). */
const referenceExtension = (resource: FhirResource, field: string): unknown =>
  Array.isArray(resource.extension)
    ? (resource.extension as unknown[]).find((ext) => isObj(ext) && ext.url === extensionUrl(field))
    : undefined

/** The create body a record's primary resource (and the resources it refers to) stands for. */
export const parseRecord = (
  mapping: RecordMapping,
  primary: FhirResource,
  related: Related,
  problems: Problem[]
): Obj => {
  const { type } = mapping
  const body: Obj = { type }
  const expected: Record<string, string> = {
    patient: 'Patient',
    encounter: 'Encounter',
    provider: 'Practitioner',
    facility: 'Organization'
  }
  const readReference = (path: string | undefined, field: string) => {
    let value: unknown
    let at: string
    if (path) {
      value = getPath(primary, path)
      at = fhirPath(mapping.resourceType, path)
    } else {
      const ext = referenceExtension(primary, field)
      value = isObj(ext) ? ext.valueReference : undefined
      at = `${mapping.resourceType}.extension('${extensionUrl(field)}')`
    }
    if (value === undefined) return
    const type = related.typeOf(value)
    if (type !== undefined && type !== expected[field]) {
      // A Composition's author or a performer may be the facility or the patient: only a Practitioner is the
      // record's provider. The patient and encounter must be what they say.
      if (field === 'patient' || field === 'encounter')
        problems.push({
          path: `${at}.reference`,
          message: `must refer to a ${expected[field]}`,
          code: 'invalid'
        })
      return
    }
    const resolved = related.resolve(value, at)
    if (resolved !== undefined) body[field] = resolved
  }
  readReference(mapping.patient, 'patient')
  readReference(mapping.encounter, 'encounter')
  readReference(mapping.provider, 'provider')
  readReference(undefined, 'facility')
  const handled = new Set<string>([...referenceFields, ...(mapping.custom?.fields ?? [])])
  for (const map of mapping.fields) {
    handled.add(map.field)
    const value =
      readNative(map, primary) ?? decodeExtension(map.field, kindOf(type, map.field), primary.extension)
    if (value !== undefined) body[map.field] = value
  }
  for (const field of dataFieldsOf(type)) {
    if (handled.has(field)) continue
    const value = decodeExtension(field, kindOf(type, field), primary.extension)
    if (value !== undefined) body[field] = value
  }
  mapping.custom?.parse(primary, related, body, problems)
  return body
}

/** The FHIR path of a record field, for import messages and the docs. */
export const fieldPath = (mapping: RecordMapping, field: string): string => {
  const map = mapping.fields.find((candidate) => candidate.field === field)
  if (map) return fhirPath(mapping.resourceType, pathOf(map))
  const reference =
    field === 'patient'
      ? mapping.patient
      : field === 'encounter'
        ? mapping.encounter
        : field === 'provider'
          ? mapping.provider
          : undefined
  if (reference) return fhirPath(mapping.resourceType, reference)
  if (mapping.custom?.describe[field]) return mapping.custom.describe[field]
  return `${mapping.resourceType}.extension('${extensionUrl(field)}')`
}

const valueOfKind: Record<FieldKind, string> = {
  string: 'valueString',
  number: 'valueDecimal',
  time: 'valueDateTime',
  boolean: 'valueBoolean',
  strings: 'valueString, one extension per element',
  json: 'valueString holding the JSON text'
}

/** Shared fields every record type keeps in extensions (unless its mapping places them). */
export const sharedExtensionFields = [
  'account',
  'facility',
  'attachmentURLs',
  'originalCreationAt',
  'providerFee',
  'providerFeeType',
  'permissions'
]

/** Where each field of the record type goes: the rows of its docs table (the shared fields kept in extensions
 *  are described once, not per type). */
export const mappingRows = (mapping: RecordMapping): { field: string; element: string }[] =>
  dataFieldsOf(mapping.type)
    .map((field) => {
      const element = fieldPath(mapping, field)
      if (!element.includes('.extension(')) return { field, element }
      if (sharedExtensionFields.includes(field)) return undefined
      const kind = mapping.fields.some((map) => map.field === field && map.kind === 'time')
        ? 'time'
        : kindOf(mapping.type, field)
      return { field, element: `extension \`${field}\` (${valueOfKind[kind]})` }
    })
    .filter((row): row is { field: string; element: string } => row !== undefined)

export const extensionValueOf = (type: MedicalRecordType, field: string) => valueOfKind[kindOf(type, field)]

/** `final` once the record is finalized, else `preliminary` (Observation, DiagnosticReport, Composition). */
export const finality = (record: Obj) =>
  record.finalizedAt !== undefined && record.finalizedAt !== null ? 'final' : 'preliminary'
