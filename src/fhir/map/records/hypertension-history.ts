// hypertension-history → Observation (category social-history): the usual and highest blood pressures as text
// components (they are recorded as free text such as "130/85").
import type { RecordMapping } from '../record'
import { observationOf } from './shared'

export const hypertensionHistory: RecordMapping = {
  type: 'hypertension-history',
  resourceType: 'Observation',
  patient: 'subject',
  encounter: 'encounter',
  provider: 'performer[]',
  fields: [
    { field: 'usualBP', component: 'Usual blood pressure', kind: 'string' },
    { field: 'highestBP', component: 'Highest blood pressure', kind: 'string' },
    { field: 'notes', path: 'note#notes.text', kind: 'string' }
  ],
  fixed: observationOf('hypertension-history', 'Hypertension history', 'social-history')
}
