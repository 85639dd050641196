// This server's documents ⇄ FHIR R4 resources (docs/fhir.md, "Mapping"). Export: `toFhir` gives every resource of
// one stored document. Import: `fromFhir` checks a whole input (schema validity, supported types, references, what
// the record schema requires) before anything is written, and answers a plan of creates in dependency order
// (patients, then encounters, then records) or every problem found.
import { validateCreate } from '../services/medical-records/medical-records.schema'
import type { FhirContext, FhirResource, FhirSource, ImportIssue, ImportResult, ImportStep } from './types'
import { validateResource } from './validate'
import { RECORD_TYPE_SYSTEM, isObj, recordTypeTag, type Obj } from './map/common'
import { patientFromFhir, patientToFhir } from './map/patient'
import { organizationToFhir } from './map/organization'
import { practitionerToFhir } from './map/practitioner'
import {
  buildRecord,
  fieldPath,
  parseRecord,
  type Problem,
  type RecordMapping,
  type Related
} from './map/record'
import { recordMappings } from './map/records'
import { encounterFromFhir, encounterToFhir } from './map/encounter'
import { appointmentToFhir } from './map/appointment'
import { attachmentFileToFhir, isAttachmentFile } from './map/attachment-file'

export type { FhirContext, FhirResource, FhirSource, ImportIssue, ImportResult, ImportStep } from './types'
export { validateResource } from './validate'

const mappings = Object.values(recordMappings) as RecordMapping[]

/** Every FHIR resource for one source document (a record may yield several, e.g. Condition + ServiceRequest).
 *  A record without a patient has no FHIR subject and yields none. */
export function toFhir(source: FhirSource, ctx: FhirContext): FhirResource[] {
  switch (source.kind) {
    case 'patient':
      return [patientToFhir(source.doc, ctx)]
    case 'organization':
      return [organizationToFhir(source.doc, ctx)]
    case 'practitioner':
      return practitionerToFhir(source.doc, source.member, ctx)
    case 'record': {
      const mapping = recordMappings[source.doc.type]
      if (!mapping || typeof source.doc.patient !== 'string' || source.doc.patient === '') return []
      return buildRecord(mapping, source.doc as Obj, ctx)
    }
    case 'encounter':
      return [encounterToFhir(source.doc, ctx)]
    case 'appointment':
      return [appointmentToFhir(source.doc, ctx)]
    case 'attachment':
      return [attachmentFileToFhir(source.doc, ctx)]
    default:
      return []
  }
}

/** Resource types import reads but creates nothing from: the facility is the import's target, staff are not
 *  created by import (records keep their provider's id), appointments need a schedule and a free slot, and files
 *  (DocumentReferences tagged as attachment files) have their bytes elsewhere. */
const acceptedOnly = ['Organization', 'Practitioner', 'PractitionerRole', 'Appointment']
const createsNothing = (resource: FhirResource) =>
  acceptedOnly.includes(resource.resourceType) || isAttachmentFile(resource)

/** The FHIR resource types toFhir can produce and fromFhir accepts. */
export const supportedTypes: readonly string[] = [
  ...new Set([
    'Patient',
    'Encounter',
    'DocumentReference',
    ...acceptedOnly,
    ...mappings.flatMap((mapping) => [mapping.resourceType, ...(mapping.secondary ?? [])])
  ])
].sort()

/** Record types an untagged resource of another system stands for (tagged ones follow their tag). */
const defaultRecordType: Record<string, string> = {
  AllergyIntolerance: 'allergy',
  Condition: 'assessment',
  FamilyMemberHistory: 'family-history',
  Procedure: 'hospitalization-history',
  DocumentReference: 'attachment'
}

const mappingOf = (resource: FhirResource): RecordMapping | undefined => {
  const type = recordTypeTag(resource) ?? defaultRecordType[resource.resourceType]
  const mapping = mappings.find((candidate) => candidate.type === type)
  return mapping && mapping.resourceType === resource.resourceType ? mapping : undefined
}

const referenceString = (reference: unknown): string | undefined =>
  isObj(reference) && typeof reference.reference === 'string' ? reference.reference : undefined

/** `Type/id` of a relative or absolute literal reference. */
const relativeOf = (value: string): string | undefined => {
  const match = value.match(/(?:^|\/)([A-Z][A-Za-z]+)\/([A-Za-z0-9.-]{1,64})(?:\/_history\/[^/]+)?$/)
  return match ? `${match[1]}/${match[2]}` : undefined
}

/**
 * Parses resources back into what this server stores. `fullUrls` (a Bundle's `entry[i].fullUrl`, same order) let
 * references name resources as `urn:uuid:...`; without one a resource is known as `Type/id`. A step's `ref` is
 * that fullUrl or `Type/id`.
 */
export function fromFhir(
  resources: FhirResource[],
  ctx: FhirContext,
  options: { fullUrls?: (string | undefined)[] } = {}
): ImportResult {
  const issues: ImportIssue[] = []
  // Resources refused by type or schema are not read further; the others still are, so every problem is found.
  const broken = new Set<number>()
  resources.forEach((resource, index) => {
    const before = issues.length
    check(resource, index)
    if (issues.length > before) broken.add(index)
  })
  function check(resource: FhirResource, index: number) {
    if (!isObj(resource) || typeof resource.resourceType !== 'string' || resource.resourceType === '') {
      issues.push({ index, path: 'resourceType', message: 'is required', code: 'required' })
      return
    }
    if (!supportedTypes.includes(resource.resourceType)) {
      issues.push({
        index,
        path: resource.resourceType,
        message: `${resource.resourceType} is not supported (supported: ${supportedTypes.join(', ')})`,
        code: 'not-supported'
      })
      return
    }
    const outcome = validateResource(resource)
    if (!outcome.valid)
      for (const error of outcome.errors)
        issues.push({ index, ...error, code: error.message === 'is required' ? 'required' : 'invalid' })
  }

  const fullUrls = options.fullUrls ?? []
  const keys = resources.map((resource, index) => {
    const relative =
      isObj(resource) && typeof resource.id === 'string' && resource.id !== ''
        ? `${resource.resourceType}/${resource.id}`
        : undefined
    return { fullUrl: fullUrls[index] || undefined, relative }
  })
  const byKey = new Map<string, number>()
  keys.forEach(({ fullUrl, relative }, index) => {
    if (fullUrl) {
      byKey.set(fullUrl, index)
      const fromFull = relativeOf(fullUrl)
      if (fromFull && !byKey.has(fromFull)) byKey.set(fromFull, index)
    }
    if (relative && !byKey.has(relative)) byKey.set(relative, index)
  })
  const stepRef = (index: number) => keys[index].fullUrl ?? keys[index].relative ?? `#${index}`
  const indexOf = (reference: unknown): number | undefined => {
    const value = referenceString(reference)
    if (value === undefined) return undefined
    const direct = byKey.get(value)
    if (direct !== undefined) return direct
    const relative = relativeOf(value)
    return relative ? byKey.get(relative) : undefined
  }
  const stepKinds = new Map<number, 'patient' | 'encounter' | 'record'>()
  resources.forEach((resource, index) => {
    if (broken.has(index)) return
    if (resource.resourceType === 'Patient') stepKinds.set(index, 'patient')
    else if (resource.resourceType === 'Encounter') stepKinds.set(index, 'encounter')
    else if (!isAttachmentFile(resource) && mappingOf(resource)) stepKinds.set(index, 'record')
  })
  const taken = new Set<number>()

  const relatedFor = (index: number): Related & { problems: Problem[] } => {
    const problems: Problem[] = []
    return {
      problems,
      resolve(reference, path) {
        const value = referenceString(reference)
        const identifierValue =
          isObj(reference) && isObj(reference.identifier) && typeof reference.identifier.value === 'string'
            ? reference.identifier.value
            : undefined
        if (value === undefined) {
          if (identifierValue) return identifierValue
          problems.push({ path: `${path}.reference`, message: 'is required', code: 'required' })
          return undefined
        }
        const target = indexOf(reference)
        if (target !== undefined) {
          const kind = stepKinds.get(target)
          if (kind === 'patient' || kind === 'encounter') return stepRef(target)
          return identifierValue ?? resources[target].id
        }
        if (value.startsWith('urn:') || value.startsWith('#')) {
          problems.push({
            path: `${path}.reference`,
            message: `${value} names no resource of the input`,
            code: 'invalid'
          })
          return undefined
        }
        const relative = relativeOf(value)
        if (!relative) {
          problems.push({
            path: `${path}.reference`,
            message: 'must be Type/id or a fullUrl of the input',
            code: 'invalid'
          })
          return undefined
        }
        return identifierValue ?? relative.split('/')[1]
      },
      take(reference) {
        const target = indexOf(reference)
        if (target === undefined || target === index) return undefined
        taken.add(target)
        return resources[target]
      },
      isSelf: (reference) => indexOf(reference) === index,
      typeOf(reference) {
        const target = indexOf(reference)
        if (target !== undefined) return resources[target].resourceType
        const value = referenceString(reference)
        const relative = value ? relativeOf(value) : undefined
        return relative ? relative.split('/')[0] : undefined
      },
      takeAll(match) {
        const found: FhirResource[] = []
        resources.forEach((resource, candidate) => {
          if (
            candidate === index ||
            taken.has(candidate) ||
            stepKinds.has(candidate) ||
            broken.has(candidate)
          )
            return
          if (match(resource)) {
            taken.add(candidate)
            found.push(resource)
          }
        })
        return found
      }
    }
  }
  const patients: ImportStep[] = []
  const encounters: ImportStep[] = []
  const records: ImportStep[] = []
  resources.forEach((resource, index) => {
    const kind = stepKinds.get(index)
    if (kind === 'patient')
      patients.push({ ref: stepRef(index), index, kind, data: patientFromFhir(resource, ctx) })
  })
  resources.forEach((resource, index) => {
    if (stepKinds.get(index) !== 'encounter') return
    const related = relatedFor(index)
    const data = encounterFromFhir(resource, related)
    if (data.patient === undefined)
      related.problems.push({ path: 'Encounter.subject', message: 'is required', code: 'required' })
    for (const problem of related.problems) issues.push({ index, ...problem })
    if (related.problems.length === 0)
      encounters.push({ ref: stepRef(index), index, kind: 'encounter', data })
  })
  resources.forEach((resource, index) => {
    if (stepKinds.get(index) !== 'record') return
    const mapping = mappingOf(resource) as RecordMapping
    const related = relatedFor(index)
    const body = parseRecord(mapping, resource, related, related.problems)
    // A record belongs to a patient (a reference already refused is not also missing).
    const patientPath = fieldPath(mapping, 'patient')
    if (
      body.patient === undefined &&
      !related.problems.some((problem) => problem.path.startsWith(patientPath))
    )
      related.problems.push({ path: patientPath, message: 'is required', code: 'required' })
    const checked = validateCreate(body)
    for (const error of checked.errors ?? []) {
      const field = error.field.split('.')[0]
      related.problems.push({
        path: fieldPath(mapping, field),
        message: `${error.field} ${error.message}`,
        code: /required/.test(error.message) ? 'required' : 'invalid'
      })
    }
    for (const problem of related.problems) issues.push({ index, ...problem })
    if (related.problems.length === 0)
      records.push({
        ref: stepRef(index),
        index,
        kind: 'record',
        data: body as Extract<ImportStep, { kind: 'record' }>['data']
      })
  })
  resources.forEach((resource, index) => {
    if (broken.has(index) || stepKinds.has(index) || taken.has(index) || createsNothing(resource)) return
    const tag = recordTypeTag(resource)
    const primaryOf = mappings.some((mapping) => mapping.resourceType === resource.resourceType)
    issues.push({
      index,
      path: tag === undefined && primaryOf ? `${resource.resourceType}.meta.tag` : resource.resourceType,
      message:
        tag === undefined && primaryOf
          ? `a ${resource.resourceType} stands for several record types: its meta.tag (system ${RECORD_TYPE_SYSTEM}) must name one`
          : `a ${resource.resourceType} is imported only as part of the record it belongs to; this one belongs to none`,
      code: 'not-supported'
    })
  })
  issues.sort((a, b) => a.index - b.index)
  if (issues.length > 0) return { ok: false, issues }
  return { ok: true, plan: [...patients, ...encounters, ...records] }
}
