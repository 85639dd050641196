// The notification settings service: one document per facility. `get` takes the facility id (or the settings' own
// id) and answers the stored settings, or the defaults of config/ marked `stored: false` when the facility wrote
// none; `create` is the upsert (the first write creates, a later one changes: src/notifications/settings.ts);
// `patch` changes stored settings by their id.
import { NotFound } from '@feathersjs/errors'
import type { Id } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import type { CreatedFields } from '../../hooks/set-created'
import { within } from '../../access/rules'
import { organizationIds } from '../../access/context'
import {
  defaultNotificationSettings,
  patchNotificationSettings,
  saveNotificationSettings
} from '../../notifications/settings'
import { ResourceService } from '../resource'
import type { NotificationSettingsDoc } from './notification-settings.schema'
import {
  notificationSettingsPath,
  type NotificationSettingsData,
  type NotificationSettingsPatch,
  type NotificationSettingsQuery
} from './notification-settings.shared'

export const getOptions = (): StoreOptions => ({
  name: 'notification-settings',
  indexes: [
    // One document per facility: simultaneous first writes store one (the lock decides; the index backs it).
    { fields: { facility: 1 }, unique: true }
  ]
})

type SettingsParams = StoreParams<NotificationSettingsQuery>
type StoredSettings = Stored<NotificationSettingsDoc>

export class NotificationSettingsService extends ResourceService<
  StoredSettings,
  NotificationSettingsData,
  NotificationSettingsPatch,
  NotificationSettingsQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, notificationSettingsPath, getOptions())
  }

  /**
   * By the facility's id (or the settings' own id): the stored settings, else — for a facility the caller belongs
   * to (an internal call: any) — the defaults with `stored: false` and no id. Steps: 1. the stored document of
   * that id or facility within the caller's read scope; 2. the defaults for a facility of the caller; 3. 404.
   */
  async get(id: Id, params: SettingsParams = {}): Promise<StoredSettings> {
    const key = String(id)
    const [stored] = await this._find({
      query: { ...within(params.query, { $or: [{ id: key }, { facility: key }] }), $limit: 1 },
      paginate: false
    })
    if (stored) return stored
    if (params.provider) {
      const access = params.account ? await this.deps.access.load(params.account) : undefined
      if (!access || !organizationIds(access).includes(key))
        throw new NotFound(`No notification settings found for id '${key}'`)
    }
    // (cast: the defaults have no id nor timestamps; clients see `stored: false`)
    return {
      facility: key,
      ...defaultNotificationSettings(this.deps),
      stored: false
    } as unknown as StoredSettings
  }

  /** The upsert of a facility's settings (the create rule checked the caller manages it). */
  async create(
    data: NotificationSettingsData & CreatedFields,
    params?: SettingsParams
  ): Promise<StoredSettings> {
    const { facility, createdAt: _c, createdBy, ...changes } = data
    return this.write('create', null, params, () =>
      saveNotificationSettings(this.deps, facility, changes, createdBy ?? null)
    )
  }

  async patch(id: Id, data: NotificationSettingsPatch, params: SettingsParams = {}): Promise<StoredSettings> {
    return this.write('patch', id, params, async () =>
      patchNotificationSettings(
        this.deps,
        await this.loadExisting(id, params),
        data,
        params.account?.id ?? null,
        params.writeScope ?? null
      )
    )
  }
}
