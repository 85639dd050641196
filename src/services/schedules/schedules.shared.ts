// Path and methods of the schedules service, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Schedule,
  scheduleDataSchema,
  schedulePatchSchema,
  scheduleQuerySchema
} from './schedules.schema'

export type { Schedule }
export const schedulePath = 'schedules'
export const scheduleMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

export type ScheduleData = Static<typeof scheduleDataSchema>
export type SchedulePatch = Static<typeof schedulePatchSchema>
export type ScheduleQuery = Static<typeof scheduleQuerySchema>

/** What a client may call on schedules: its methods, typed by the schemas (data in, result out). */
export type ScheduleClientService = Pick<
  ClientService<Schedule, ScheduleData, SchedulePatch, Paginated<Schedule>, ClientParams<ScheduleQuery>>,
  (typeof scheduleMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [schedulePath]: ScheduleClientService
  }
}
