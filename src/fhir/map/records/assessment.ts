// assessment → Condition: impression → verificationStatus provisional, diagnosis → confirmed; the ICD-10 code in
// the ICD-10 system, the text as the code's text. Each recommended procedure → a ServiceRequest whose reason is
// the Condition (its id and catalogue ref in extensions), in order.
import type { FhirResource } from '../../types'
import {
  ICD10_SYSTEM,
  compact,
  decodeExtension,
  encodeExtension,
  fhirId,
  getPath,
  isObj,
  metaOf,
  type Obj
} from '../common'
import { refTo, type RecordMapping } from '../record'

const VERIFICATION = 'http://terminology.hl7.org/CodeSystem/condition-ver-status'
const verification: Record<string, string> = { impression: 'provisional', diagnosis: 'confirmed' }

export const assessment: RecordMapping = {
  type: 'assessment',
  resourceType: 'Condition',
  secondary: ['ServiceRequest'],
  patient: 'subject',
  encounter: 'encounter',
  provider: 'asserter',
  fields: [{ field: 'text', path: 'code.text', kind: 'string' }],
  fixed: () => ({
    category: [
      {
        coding: [
          { system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'encounter-diagnosis' }
        ]
      }
    ]
  }),
  custom: {
    fields: ['subtype', 'icd10', 'recommendedProcedures'],
    describe: {
      subtype: 'Condition.verificationStatus (impression → provisional, diagnosis → confirmed)',
      icd10: `Condition.code.coding (system ${ICD10_SYSTEM})`,
      recommendedProcedures:
        "ServiceRequest per element (code.text = text, extension '…/id' and '…/ref', reasonReference = the Condition)"
    },
    build(record, primary) {
      const status = verification[String(record.subtype)]
      if (status) primary.verificationStatus = { coding: [{ system: VERIFICATION, code: status }] }
      if (typeof record.icd10 === 'string' && record.icd10 !== '') {
        const code = (isObj(primary.code) ? primary.code : {}) as Obj
        primary.code = { coding: [{ system: ICD10_SYSTEM, code: record.icd10 }], ...code }
      }
      const procedures = Array.isArray(record.recommendedProcedures)
        ? record.recommendedProcedures.filter(isObj)
        : []
      const conditionId = String(primary.id)
      return procedures.map(
        (procedure, position) =>
          compact({
            resourceType: 'ServiceRequest',
            id: fhirId(
              String(record.id),
              'procedure',
              typeof procedure.id === 'string' ? procedure.id : position
            ),
            meta: metaOf(record, 'assessment'),
            status: 'active',
            intent: 'proposal',
            code:
              typeof procedure.text === 'string' && procedure.text !== ''
                ? { text: procedure.text }
                : undefined,
            subject: refTo('Patient', String(record.patient)),
            encounter:
              typeof record.encounter === 'string' && record.encounter !== ''
                ? refTo('Encounter', record.encounter)
                : undefined,
            requester:
              typeof record.provider === 'string' && record.provider !== ''
                ? refTo('Practitioner', record.provider)
                : undefined,
            reasonReference: [{ reference: `Condition/${conditionId}` }],
            extension: [
              ...encodeExtension('id', 'string', procedure.id),
              ...encodeExtension('ref', 'string', procedure.ref)
            ]
          }) as FhirResource
      )
    },
    parse(primary, related, body) {
      const status = getPath(primary, 'verificationStatus.coding[].code')
      const subtype = Object.entries(verification).find(([, code]) => code === status)?.[0]
      // A Condition from elsewhere without a verification status states a diagnosis.
      body.subtype = subtype ?? (status === undefined ? 'diagnosis' : undefined)
      if (body.subtype === undefined) delete body.subtype
      const coding = Array.isArray(getPath(primary, 'code.coding'))
        ? (getPath(primary, 'code.coding') as unknown[])
        : []
      const icd10 = coding.find((entry) => isObj(entry) && entry.system === ICD10_SYSTEM)
      if (isObj(icd10) && typeof icd10.code === 'string') body.icd10 = icd10.code
      const requests = related.takeAll(
        (resource) =>
          resource.resourceType === 'ServiceRequest' &&
          Array.isArray(resource.reasonReference) &&
          resource.reasonReference.some((reference) => related.isSelf(reference))
      )
      if (requests.length > 0)
        body.recommendedProcedures = requests.map((request) =>
          compact({
            id: decodeExtension('id', 'string', request.extension),
            ref: decodeExtension('ref', 'string', request.extension),
            text: getPath(request, 'code.text')
          })
        )
    }
  }
}
