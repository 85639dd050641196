// Every medical-record type's mapping, by type.
import type { MedicalRecordType } from '../../../services/medical-records/medical-records.schema'
import type { RecordMapping } from '../record'
import { allergy } from './allergy'
import { apeReport } from './ape-report'
import { assessment } from './assessment'
import { attachment } from './attachment'
import { audiometryReport } from './audiometry-report'
import { birthHistory } from './birth-history'
import { dentalHistory } from './dental-history'
import { dentalNote } from './dental-note'
import { developmentalMilestone } from './developmental-milestone'
import { dischargeNote } from './discharge-note'
import { entNote } from './ent-note'
import { familyHistory } from './family-history'
import { gynecologicalHistory } from './gynecological-history'
import { hospitalizationHistory } from './hospitalization-history'
import { hypertensionHistory } from './hypertension-history'

export const recordMappings: Record<MedicalRecordType, RecordMapping> = {
  'ape-report': apeReport,
  allergy,
  assessment,
  attachment,
  'audiometry-report': audiometryReport,
  'birth-history': birthHistory,
  'dental-history': dentalHistory,
  'dental-note': dentalNote,
  'developmental-milestone': developmentalMilestone,
  'discharge-note': dischargeNote,
  'ent-note': entNote,
  'family-history': familyHistory,
  'gynecological-history': gynecologicalHistory,
  'hospitalization-history': hospitalizationHistory,
  'hypertension-history': hypertensionHistory
}
