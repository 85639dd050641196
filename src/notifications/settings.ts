// A facility's notification settings: its own (`/notification-settings`) over the defaults of config/. One
// document per facility, created by its first write: the upsert is a check-then-write under the facility's lock
// (`deps.locks`: in process and, with REDIS_URL, across instances), backed by a unique index on `facility`, so
// simultaneous first writes store one document and each later one changes it.
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { within } from '../access/rules'
import type {
  NotificationSettingsDoc,
  notificationSettingsPatchSchema
} from '../services/notification-settings/notification-settings.schema'
import type { Static } from '@feathersjs/typebox'

export interface NotificationSettings {
  channels: { email: boolean; sms: boolean }
  reminderOffsetsMinutes: number[]
  queueNextPosition: number
  senderName: string
  replyTo?: string
  quietHours?: { start: string; end: string }
}

type SettingsChanges = Static<typeof notificationSettingsPatchSchema>
type StoredSettings = Stored<NotificationSettingsDoc>

/** The defaults of config/ (a fresh copy). */
export const defaultNotificationSettings = (deps: Pick<Deps, 'settings'>): NotificationSettings => {
  const { defaults } = deps.settings.get('notifications')
  return {
    ...defaults,
    channels: { ...defaults.channels },
    reminderOffsetsMinutes: [...defaults.reminderOffsetsMinutes]
  }
}

/** The facility's stored settings, if it wrote any. */
export const storedSettingsOf = async (
  deps: Pick<Deps, 'stores'>,
  facility: string,
  scope: Query | null = null
): Promise<StoredSettings | undefined> =>
  (
    await deps.stores.notificationSettings._find({
      query: within({ facility, $limit: 1 }, scope),
      paginate: false
    })
  )[0]

/** The settings that apply to `facility`: its stored ones, else the configured defaults. */
export const notificationSettingsOf = async (
  deps: Pick<Deps, 'settings' | 'stores'>,
  facility: string
): Promise<NotificationSettings> => {
  const stored = await storedSettingsOf(deps, facility)
  if (!stored) return defaultNotificationSettings(deps)
  return {
    channels: { ...stored.channels },
    reminderOffsetsMinutes: [...stored.reminderOffsetsMinutes],
    queueNextPosition: stored.queueNextPosition,
    senderName: stored.senderName,
    ...(stored.replyTo ? { replyTo: stored.replyTo } : {}),
    ...(stored.quietHours ? { quietHours: { ...stored.quietHours } } : {})
  }
}

/** The store update of `changes` over `current`: channels merged, `null` clears replyTo and quietHours. */
const updateOf = (current: NotificationSettings, changes: SettingsChanges) => {
  const { replyTo, quietHours, channels, ...rest } = changes
  const set: Record<string, unknown> = { ...rest }
  const unset: Record<string, ''> = {}
  if (channels) set.channels = { ...current.channels, ...channels }
  if (replyTo === null) unset.replyTo = ''
  else if (replyTo !== undefined) set.replyTo = replyTo
  if (quietHours === null) unset.quietHours = ''
  else if (quietHours !== undefined) set.quietHours = quietHours
  return { set, unset }
}

/** Runs `task` holding the lock of the facility's settings. */
const settingsLock = <T>(deps: Pick<Deps, 'locks'>, facility: string, task: () => Promise<T>) =>
  deps.locks.exclusive(`notification-settings:${facility}`, task)

/**
 * Writes `changes` to the facility's settings: creates them (over the defaults) on the first write, else changes
 * the stored ones. Answers the stored document.
 */
export const saveNotificationSettings = async (
  deps: Pick<Deps, 'stores' | 'settings' | 'clock' | 'locks'>,
  facility: string,
  changes: SettingsChanges,
  by: string | null
): Promise<StoredSettings> =>
  settingsLock(deps, facility, async () => {
    const now = deps.clock.now()
    const existing = await storedSettingsOf(deps, facility)
    if (existing) return changeSettings(deps, existing, changes, by)
    const defaults = defaultNotificationSettings(deps)
    const { set, unset } = updateOf(defaults, changes)
    const doc: Record<string, unknown> = { ...defaults, ...set }
    for (const cleared of Object.keys(unset)) delete doc[cleared]
    return deps.stores.notificationSettings._create({
      facility,
      ...doc,
      createdAt: now,
      createdBy: by,
      updatedAt: now,
      updatedBy: by
    })
  })

/** Changes stored settings (within the caller's write scope, when there is one). */
const changeSettings = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  existing: StoredSettings,
  changes: SettingsChanges,
  by: string | null,
  scope: Query | null = null
) => {
  const { set, unset } = updateOf(existing, changes)
  return deps.stores.notificationSettings._patch(
    existing.id,
    {
      ...set,
      updatedAt: deps.clock.now(),
      updatedBy: by,
      ...(Object.keys(unset).length ? { $unset: unset } : {})
    },
    { query: within({}, scope) }
  )
}

/** A PATCH of stored settings by id, under the facility's lock (as every write of them). */
export const patchNotificationSettings = (
  deps: Pick<Deps, 'stores' | 'clock' | 'locks'>,
  existing: StoredSettings,
  changes: SettingsChanges,
  by: string | null,
  scope: Query | null = null
) => settingsLock(deps, existing.facility, () => changeSettings(deps, existing, changes, by, scope))
