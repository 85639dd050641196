// Path and methods of the appointments service, shared with the typed client (appointments are cancelled, never
// removed).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Appointment as AppointmentDoc,
  appointmentInternals,
  appointmentDataSchema,
  appointmentPatchSchema,
  appointmentQuerySchema
} from './appointments.schema'
import type { External } from '../../schema/resolvers'

export const appointmentPath = 'appointments'
export const appointmentMethods = ['find', 'get', 'create', 'patch'] as const

/** An appointment as clients receive it. */
export type Appointment = External<AppointmentDoc, typeof appointmentInternals>
export type AppointmentData = Static<typeof appointmentDataSchema>
export type AppointmentPatch = Static<typeof appointmentPatchSchema>
export type AppointmentQuery = Static<typeof appointmentQuerySchema>

/** What a client may call on appointments: its methods, typed by the schemas (data in, result out). */
export type AppointmentClientService = Pick<
  ClientService<
    Appointment,
    AppointmentData,
    AppointmentPatch,
    Paginated<Appointment>,
    ClientParams<AppointmentQuery>
  >,
  (typeof appointmentMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [appointmentPath]: AppointmentClientService
  }
}
