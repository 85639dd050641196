// The events that notify a patient, and what each one's message may say: never a record's clinical contents —
// only who, where, when and a link (src/notifications/render.ts documents the variables of each event).

// The lists are the contract's (the notifications schema), named here for the domain.
export {
  eventNames as notificationEvents,
  channelNames as notificationChannels,
  statusNames as notificationStatuses
} from '../services/notifications/notifications.schema'
import type { channelNames, eventNames, statusNames } from '../services/notifications/notifications.schema'
export type NotificationEvent = (typeof eventNames)[number]
export type NotificationChannel = (typeof channelNames)[number]
export type NotificationStatus = (typeof statusNames)[number]

/** Why a notification is skipped, or waits. */
export const notificationReasons = [
  'opted-out',
  'no-address',
  'quiet-hours-wait',
  'channel-off',
  'no-longer-due'
] as const
export type NotificationReason = (typeof notificationReasons)[number]
