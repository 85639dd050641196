// Constant elements the record mappings share.
import type { MedicalRecordType } from '../../../services/medical-records/medical-records.schema'
import { CODE_SYSTEM_BASE, RECORD_TYPE_SYSTEM, type Obj } from '../common'
import { finality, refTo } from '../record'

export const OBSERVATION_CATEGORY = 'http://terminology.hl7.org/CodeSystem/observation-category'

/** An Observation's category (social-history for the histories, exam for examinations). */
export const observationCategory = (code: 'social-history' | 'exam' | 'survey') => [
  { coding: [{ system: OBSERVATION_CATEGORY, code }] }
]

/** The code naming what a resource is: the record type in this server's record-type system, with its label. */
export const recordCode = (
  type: MedicalRecordType,
  label: string,
  loinc?: { code: string; display: string }
) => ({
  coding: [
    ...(loinc ? [{ system: 'http://loinc.org', ...loinc }] : []),
    { system: RECORD_TYPE_SYSTEM, code: type, display: label }
  ],
  text: label
})

/** The Observation a history record becomes: status, category, code. */
export const observationOf =
  (type: MedicalRecordType, label: string, category: 'social-history' | 'exam' | 'survey') =>
  (record: Obj) => ({
    status: finality(record),
    category: observationCategory(category),
    code: recordCode(type, label)
  })

/** A Composition's required elements; without a provider the facility (else the patient) is its author. */
export const compositionOf =
  (type: MedicalRecordType, label: string, loinc?: { code: string; display: string }) => (record: Obj) => ({
    status: finality(record),
    type: recordCode(type, label, loinc),
    date: typeof record.createdAt === 'number' ? new Date(record.createdAt).toISOString() : undefined,
    title: label,
    author:
      typeof record.provider === 'string' && record.provider !== ''
        ? undefined
        : typeof record.facility === 'string' && record.facility !== ''
          ? [refTo('Organization', record.facility)]
          : [refTo('Patient', String(record.patient))]
  })

export const codeSystemOf = (type: MedicalRecordType) => `${CODE_SYSTEM_BASE}/${type}`
