// dental-history → Observation (category social-history): each examined finding a component; the lists (teeth,
// habits, complications) have no component form that keeps them as lists and go into extensions.
import type { RecordMapping } from '../record'
import { observationOf } from './shared'

const findings: [string, string][] = [
  ['gingivae', 'Gingivae'],
  ['palate', 'Palate'],
  ['frenum', 'Frenum'],
  ['profile', 'Profile'],
  ['hygiene', 'Hygiene'],
  ['abrasions', 'Abrasions'],
  ['recededGums', 'Receded gums'],
  ['mouthOpening', 'Mouth opening'],
  ['prevDentist', 'Previous dentist'],
  ['prevDentistContactNo', "Previous dentist's contact number"],
  ['oropharynx', 'Oropharynx'],
  ['teethDiscoloration', 'Teeth discoloration'],
  ['calculus', 'Calculus'],
  ['tongue', 'Tongue'],
  ['malocclusion', 'Malocclusion'],
  ['mentalis', 'Mentalis'],
  ['swallowing', 'Swallowing'],
  ['gagFlex', 'Gag reflex']
]

export const dentalHistory: RecordMapping = {
  type: 'dental-history',
  resourceType: 'Observation',
  patient: 'subject',
  encounter: 'encounter',
  provider: 'performer[]',
  fields: [
    ...findings.map(([field, label]) => ({ field, component: label, kind: 'string' as const })),
    { field: 'medicalConditionAt', path: 'effectiveDateTime', kind: 'time' },
    { field: 'notes', path: 'note#notes.text', kind: 'string' }
  ],
  fixed: observationOf('dental-history', 'Dental history', 'social-history')
}
