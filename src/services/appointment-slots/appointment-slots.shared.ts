// Path and method of the appointment-slots service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Slot, SlotQuery } from './appointment-slots.schema'

export type { Slot, SlotQuery }
export const appointmentSlotPath = 'appointment-slots'
export const appointmentSlotMethods = ['find'] as const

/** What a client may call on appointment-slots: find, typed by the query schema. */
export type AppointmentSlotClientService = Pick<
  ClientService<Slot, never, never, Paginated<Slot>, ClientParams<SlotQuery>>,
  (typeof appointmentSlotMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [appointmentSlotPath]: AppointmentSlotClientService
  }
}
