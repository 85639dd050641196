// Path and methods of the patients service (a facility's patients: find with a search, get, register), shared
// with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { Static } from '@feathersjs/typebox'
import type { ClientParams } from '../client-params'
import type { External } from '../../schema/resolvers'
import type {
  Patient as PatientDoc,
  patientDataSchema,
  patientInternals,
  patientQuerySchema
} from './patients.schema'

export const patientPath = 'patients'
export const patientMethods = ['find', 'get', 'create'] as const

/** A facility's patient as clients receive it. */
export type Patient = External<PatientDoc, typeof patientInternals>
export type PatientData = Static<typeof patientDataSchema>
export type PatientQuery = Static<typeof patientQuerySchema>

export type PatientClientService = Pick<
  ClientService<Patient, PatientData, never, Paginated<Patient>, ClientParams<PatientQuery>>,
  (typeof patientMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [patientPath]: PatientClientService
  }
}
