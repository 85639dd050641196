// gynecological-history → Observation (category social-history), each detail a component.
import type { RecordMapping } from '../record'
import { observationOf } from './shared'

export const gynecologicalHistory: RecordMapping = {
  type: 'gynecological-history',
  resourceType: 'Observation',
  patient: 'subject',
  encounter: 'encounter',
  provider: 'performer[]',
  fields: [
    { field: 'prevCervicSmearsResult', component: 'Previous cervical smears: result', kind: 'string' },
    { field: 'prevCervicSmearsDate', component: 'Previous cervical smears: date', kind: 'time' },
    { field: 'prevProblemsTreatments', component: 'Previous problems and treatments', kind: 'string' },
    { field: 'currentContraception', component: 'Current contraception', kind: 'string' },
    { field: 'notes', path: 'note#notes.text', kind: 'string' }
  ],
  fixed: observationOf('gynecological-history', 'Gynecological history', 'social-history')
}
