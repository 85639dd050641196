// allergy → AllergyIntolerance: the substance's name is the code's text, the start its onset.
import type { RecordMapping } from '../record'

export const allergy: RecordMapping = {
  type: 'allergy',
  resourceType: 'AllergyIntolerance',
  patient: 'patient',
  encounter: 'encounter',
  provider: 'recorder',
  fields: [
    { field: 'name', path: 'code.text', kind: 'string' },
    { field: 'description', path: 'note#description.text', kind: 'string' },
    { field: 'supplement', path: 'note#supplement.text', kind: 'string' },
    { field: 'startedAt', path: 'onsetDateTime', kind: 'time' }
  ],
  fixed: () => ({
    clinicalStatus: {
      coding: [
        { system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical', code: 'active' }
      ]
    }
  })
}
