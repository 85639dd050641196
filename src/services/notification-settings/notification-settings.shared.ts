// Path and methods of the notification settings, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { Static } from '@feathersjs/typebox'
import type { ClientParams } from '../client-params'
import type {
  NotificationSettingsDoc,
  notificationSettingsDataSchema,
  notificationSettingsPatchSchema,
  notificationSettingsQuerySchema
} from './notification-settings.schema'

export const notificationSettingsPath = 'notification-settings'
export const notificationSettingsMethods = ['find', 'get', 'create', 'patch'] as const

/**
 * A facility's notification settings as clients receive them; `stored: false` (and no `id`) when the facility has
 * set nothing and these are the defaults.
 */
export type NotificationSettings = Omit<
  NotificationSettingsDoc,
  'id' | 'createdAt' | 'createdBy' | 'updatedAt'
> &
  Partial<Pick<NotificationSettingsDoc, 'id' | 'createdAt' | 'createdBy' | 'updatedAt'>> & { stored: boolean }
export type NotificationSettingsData = Static<typeof notificationSettingsDataSchema>
export type NotificationSettingsPatch = Static<typeof notificationSettingsPatchSchema>
export type NotificationSettingsQuery = Static<typeof notificationSettingsQuerySchema>

/** Settings as stored (what a write and a list answer). */
export type StoredNotificationSettings = NotificationSettingsDoc & { stored: true }

/** `get(facilityId)` (or the settings' id) answers the facility's settings, stored or the defaults; `create` is the
 *  upsert of a facility's settings; `patch(id)` changes stored ones. */
export type NotificationSettingsClientService = Pick<
  ClientService<
    StoredNotificationSettings,
    NotificationSettingsData,
    NotificationSettingsPatch,
    Paginated<StoredNotificationSettings>,
    ClientParams<NotificationSettingsQuery>
  >,
  'find' | 'create'
> & {
  get(id: string, params?: ClientParams<NotificationSettingsQuery>): Promise<NotificationSettings>
  patch(
    id: string,
    data: NotificationSettingsPatch,
    params?: ClientParams<NotificationSettingsQuery>
  ): Promise<StoredNotificationSettings>
}

declare module '../../client' {
  interface ServiceTypes {
    [notificationSettingsPath]: NotificationSettingsClientService
  }
}
