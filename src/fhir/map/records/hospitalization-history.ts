// hospitalization-history → Procedure (a hospital stay is something done to the patient): the treatment is the
// procedure's code, the diagnosis its reason, the hospital its location, the admission its performed time.
import type { RecordMapping } from '../record'
import { recordCode } from './shared'

export const hospitalizationHistory: RecordMapping = {
  type: 'hospitalization-history',
  resourceType: 'Procedure',
  patient: 'subject',
  encounter: 'encounter',
  provider: 'recorder',
  fields: [
    { field: 'treatment', path: 'code.text', kind: 'string' },
    { field: 'diagnosis', path: 'reasonCode#diagnosis.text', kind: 'string' },
    { field: 'hospitalName', path: 'location.display', kind: 'string' },
    { field: 'hospitalizedAt', path: 'performedDateTime', kind: 'time' },
    { field: 'notes', path: 'note#notes.text', kind: 'string' }
  ],
  fixed: () => ({ status: 'completed', category: recordCode('hospitalization-history', 'Hospitalization') })
}
