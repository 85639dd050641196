// medical-encounters → Encounter. The visit's kind (config billing.encounterTypes) is the type's text; the notes
// have no Encounter element and go into an extension. Status: `finished` once the encounter has ended, else
// `in-progress` (the billing status draft/finalized is not a visit status and stays out: it is server-owned).
import type { Stored } from '../../schema/resolvers'
import type { Encounter } from '../../services/medical-encounters/medical-encounters.schema'
import type { EncounterData, FhirContext, FhirResource } from '../types'
import {
  compact,
  decodeExtension,
  encodeExtension,
  fhirId,
  getPath,
  identifier,
  isoOf,
  metaOf,
  msOf,
  refTo
} from './common'
import type { Related } from './record'

export const ACT_CODE = 'http://terminology.hl7.org/CodeSystem/v3-ActCode'

export const encounterToFhir = (encounter: Stored<Encounter>, ctx: FhirContext): FhirResource =>
  compact({
    resourceType: 'Encounter',
    id: fhirId(encounter.id),
    meta: metaOf(encounter),
    identifier: identifier(ctx, 'medical-encounters', encounter.id),
    status: encounter.endedAt !== undefined ? 'finished' : 'in-progress',
    class: { system: ACT_CODE, code: 'AMB', display: 'ambulatory' },
    type: encounter.type ? [{ text: encounter.type }] : undefined,
    subject: refTo('Patient', encounter.patient),
    participant: encounter.provider ? [{ individual: refTo('Practitioner', encounter.provider) }] : undefined,
    period: { start: isoOf(encounter.startedAt), end: isoOf(encounter.endedAt) },
    reasonCode: encounter.reason ? [{ text: encounter.reason }] : undefined,
    serviceProvider: encounter.facility ? refTo('Organization', encounter.facility) : undefined,
    extension: [
      ...encodeExtension('notes', 'string', encounter.notes),
      // Timestamps that are no whole millisecond instant keep their number here.
      ...(isoOf(encounter.startedAt) ? [] : encodeExtension('startedAt', 'number', encounter.startedAt)),
      ...(isoOf(encounter.endedAt) ? [] : encodeExtension('endedAt', 'number', encounter.endedAt))
    ]
  })

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

export const encounterFromFhir = (resource: FhirResource, related: Related): EncounterData =>
  compact({
    facility: resource.serviceProvider
      ? related.resolve(resource.serviceProvider, 'Encounter.serviceProvider')
      : undefined,
    patient: (resource.subject
      ? related.resolve(resource.subject, 'Encounter.subject')
      : undefined) as string,
    type: str(getPath(resource, 'type[].text')),
    startedAt:
      msOf(getPath(resource, 'period.start')) ??
      (decodeExtension('startedAt', 'number', resource.extension) as number | undefined),
    endedAt:
      msOf(getPath(resource, 'period.end')) ??
      (decodeExtension('endedAt', 'number', resource.extension) as number | undefined),
    reason: str(getPath(resource, 'reasonCode[].text')),
    notes: decodeExtension('notes', 'string', resource.extension) as string | undefined,
    provider: getPath(resource, 'participant[].individual')
      ? related.resolve(getPath(resource, 'participant[].individual'), 'Encounter.participant[0].individual')
      : undefined
  })
