// Path and methods of the medical-records service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  MedicalRecord,
  medicalRecordDataSchema,
  medicalRecordPatchSchema,
  medicalRecordQuerySchema
} from './medical-records.schema'
import type { AttachmentSummary } from '../attachments/attachments.shared'

export const medicalRecordPath = 'medical-records'
export const medicalRecordMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

export type { MedicalRecord }
/** A record as clients receive it: with its ready files (docs/attachments.md). */
export type MedicalRecordAnswer = MedicalRecord & { attachments?: AttachmentSummary[] }
export type MedicalRecordData = Static<typeof medicalRecordDataSchema>
export type MedicalRecordPatch = Static<typeof medicalRecordPatchSchema>
export type MedicalRecordQuery = Static<typeof medicalRecordQuerySchema>

/** What a client may call on medical-records: its methods, typed by the schemas (data in, result out). */
export type MedicalRecordClientService = Pick<
  ClientService<
    MedicalRecordAnswer,
    MedicalRecordData,
    MedicalRecordPatch,
    Paginated<MedicalRecordAnswer>,
    ClientParams<MedicalRecordQuery>
  >,
  (typeof medicalRecordMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [medicalRecordPath]: MedicalRecordClientService
  }
}
