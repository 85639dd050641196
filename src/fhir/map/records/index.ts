// Every medical-record type's mapping, by type.
import type { MedicalRecordType } from '../../../services/medical-records/medical-records.schema'
import type { RecordMapping } from '../record'
import { allergy } from './allergy'

export const recordMappings: Partial<Record<MedicalRecordType, RecordMapping>> = {
  allergy
}
