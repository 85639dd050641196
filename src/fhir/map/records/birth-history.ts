// birth-history → Observation (category social-history): the delivery date is the effective time, each detail a
// component.
import type { RecordMapping } from '../record'
import { observationOf } from './shared'

export const birthHistory: RecordMapping = {
  type: 'birth-history',
  resourceType: 'Observation',
  patient: 'subject',
  encounter: 'encounter',
  provider: 'performer[]',
  fields: [
    { field: 'deliveredAt', path: 'effectiveDateTime', kind: 'time' },
    { field: 'methodOfDelivery', component: 'Method of delivery', kind: 'string' },
    { field: 'attendedBy', component: 'Attended by', kind: 'string' },
    { field: 'complications', component: 'Complications', kind: 'string' },
    { field: 'notes', path: 'note#notes.text', kind: 'string' }
  ],
  fixed: observationOf('birth-history', 'Birth history', 'social-history')
}
