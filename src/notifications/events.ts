// The events that notify a patient, and what each one's message may say: never a record's clinical contents —
// only who, where, when and a link (src/notifications/render.ts documents the variables of each event).

export const notificationEvents = [
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.cancelled',
  'appointment.reminder',
  'queue.next',
  'queue.called',
  'record.finalized',
  'invoice.finalized'
] as const
export type NotificationEvent = (typeof notificationEvents)[number]

export const notificationChannels = ['email', 'sms'] as const
export type NotificationChannel = (typeof notificationChannels)[number]

export const notificationStatuses = ['queued', 'sent', 'failed', 'skipped'] as const
export type NotificationStatus = (typeof notificationStatuses)[number]

/** Why a notification is skipped, or waits. */
export const notificationReasons = [
  'opted-out',
  'no-address',
  'quiet-hours-wait',
  'channel-off',
  'no-longer-due'
] as const
export type NotificationReason = (typeof notificationReasons)[number]
