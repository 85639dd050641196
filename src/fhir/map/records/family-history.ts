// family-history → FamilyMemberHistory: the relative's relationship, their condition (with the cause of death as a
// second condition that contributed to it), deceased flag and notes. The condition's date has no dateTime onset in
// FHIR R4 (only age, range, period or text) and goes into an extension.
import type { RecordMapping } from '../record'
import { isObj, getPath, setPath } from '../common'

export const familyHistory: RecordMapping = {
  type: 'family-history',
  resourceType: 'FamilyMemberHistory',
  patient: 'patient',
  fields: [
    { field: 'relationship', path: 'relationship.text', kind: 'string' },
    { field: 'medicalCondition', path: 'condition#medicalCondition.code.text', kind: 'string' },
    { field: 'deceased', path: 'deceasedBoolean', kind: 'boolean' },
    { field: 'notes', path: 'note#notes.text', kind: 'string' }
  ],
  // relationship is required by FHIR: without one, the generic "family member" role.
  fixed: (record) => ({
    status: 'completed',
    relationship:
      typeof record.relationship === 'string' && record.relationship !== ''
        ? undefined
        : { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-RoleCode', code: 'FAMMEMB' }] }
  }),
  custom: {
    fields: ['deathCause'],
    describe: {
      deathCause: "FamilyMemberHistory.condition.where(id='deathCause').code.text (contributedToDeath true)"
    },
    build(record, primary) {
      if (typeof record.deathCause === 'string' && record.deathCause !== '')
        setPath(primary, 'condition#deathCause', {
          code: { text: record.deathCause },
          contributedToDeath: true
        })
      return []
    },
    parse(primary, _related, body) {
      const cause = getPath(primary, 'condition#deathCause')
      if (isObj(cause) && isObj(cause.code) && typeof cause.code.text === 'string')
        body.deathCause = cause.code.text
    }
  }
}
