// discharge-note → Composition (LOINC 18842-5 discharge summary): diagnosis, instructions and disposition as
// sections; the residents' and interns' names go into extensions.
import type { RecordMapping } from '../record'
import { compositionOf } from './shared'

export const dischargeNote: RecordMapping = {
  type: 'discharge-note',
  resourceType: 'Composition',
  identifier: 'single',
  patient: 'subject',
  encounter: 'encounter',
  provider: 'author[]',
  fields: [
    { field: 'diagnosis', section: 'Diagnosis', kind: 'string' },
    { field: 'instructions', section: 'Instructions', kind: 'string' },
    { field: 'disposition', section: 'Disposition', kind: 'string' }
  ],
  fixed: compositionOf('discharge-note', 'Discharge note', { code: '18842-5', display: 'Discharge summary' })
}
