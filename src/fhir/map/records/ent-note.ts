// ent-note → Composition: the sleep-study findings as sections; the pressures, AHI and ramp time as numeric
// sections whose narrative is the number (import reads it back as a number).
import type { RecordMapping } from '../record'
import { compositionOf } from './shared'

export const entNote: RecordMapping = {
  type: 'ent-note',
  resourceType: 'Composition',
  identifier: 'single',
  patient: 'subject',
  encounter: 'encounter',
  provider: 'author[]',
  fields: [
    { field: 'psgDiagnostic', section: 'Polysomnography: diagnostic', kind: 'string' },
    { field: 'psgTherapeutic', section: 'Polysomnography: therapeutic', kind: 'string' },
    { field: 'psgSplit', section: 'Polysomnography: split night', kind: 'string' },
    { field: 'cpapPressure', section: 'CPAP pressure', kind: 'number' },
    { field: 'lsatPressure', section: 'Lowest oxygen saturation', kind: 'number' },
    { field: 'bipapInspiration', section: 'BiPAP inspiratory pressure', kind: 'number' },
    { field: 'bipapExpiration', section: 'BiPAP expiratory pressure', kind: 'number' },
    { field: 'ahi', section: 'Apnea-hypopnea index', kind: 'number' },
    { field: 'rampTime', section: 'Ramp time', kind: 'number' }
  ],
  fixed: compositionOf('ent-note', 'ENT note')
}
