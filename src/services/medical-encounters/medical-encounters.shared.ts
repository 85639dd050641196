// Path and methods of the medical-encounters service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Encounter as EncounterDoc,
  encounterInternals,
  encounterDataSchema,
  encounterPatchSchema,
  encounterQuerySchema
} from './medical-encounters.schema'
import type { External } from '../../schema/resolvers'

export const medicalEncounterPath = 'medical-encounters'
export const medicalEncounterMethods = ['find', 'get', 'create', 'update', 'patch', 'remove'] as const

/** An encounter as clients receive it: none of the fields its external resolver keeps on the server. */
export type Encounter = External<EncounterDoc, typeof encounterInternals>
export type MedicalEncounterData = Static<typeof encounterDataSchema>
export type MedicalEncounterPatch = Static<typeof encounterPatchSchema>
export type MedicalEncounterQuery = Static<typeof encounterQuerySchema>

/** What a client may call on medical-encounters: its methods, typed by the schemas (data in, result out). */
export type MedicalEncounterClientService = Pick<
  ClientService<
    Encounter,
    MedicalEncounterData,
    MedicalEncounterPatch,
    Paginated<Encounter>,
    ClientParams<MedicalEncounterQuery>
  >,
  (typeof medicalEncounterMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [medicalEncounterPath]: MedicalEncounterClientService
  }
}
