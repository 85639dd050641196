// dental-note → Composition: the clinical narrative (chief complaint, history, signs and symptoms, diagnosis,
// service, materials, notes) as sections; the charting data (teeth, surfaces, status, age group) and the workflow
// fields (subtype, order, doneAt, doneBy) have no Composition element and go into extensions.
import type { RecordMapping } from '../record'
import { compositionOf } from './shared'

export const dentalNote: RecordMapping = {
  type: 'dental-note',
  resourceType: 'Composition',
  identifier: 'single',
  patient: 'subject',
  encounter: 'encounter',
  provider: 'author[]',
  fields: [
    { field: 'cc', section: 'Chief complaint', kind: 'string' },
    { field: 'hx', section: 'History', kind: 'string' },
    { field: 'ss', section: 'Signs and symptoms', kind: 'string' },
    { field: 'dx', section: 'Diagnosis', kind: 'string' },
    { field: 'service', section: 'Service', kind: 'string' },
    { field: 'materials', section: 'Materials', kind: 'string' },
    { field: 'notes', section: 'Notes', kind: 'string' }
  ],
  fixed: compositionOf('dental-note', 'Dental note')
}
