// developmental-milestone → Observation (category exam): the milestone is the value, its category and age
// components, the date it was accomplished the effective time.
import type { RecordMapping } from '../record'
import { observationOf } from './shared'

export const developmentalMilestone: RecordMapping = {
  type: 'developmental-milestone',
  resourceType: 'Observation',
  patient: 'subject',
  encounter: 'encounter',
  provider: 'performer[]',
  fields: [
    { field: 'milestone', path: 'valueString', kind: 'string' },
    { field: 'category', component: 'Category', kind: 'string' },
    { field: 'age', component: 'Age', kind: 'string' },
    { field: 'accomplishedAt', path: 'effectiveDateTime', kind: 'time' }
  ],
  fixed: observationOf('developmental-milestone', 'Developmental milestone', 'exam')
}
