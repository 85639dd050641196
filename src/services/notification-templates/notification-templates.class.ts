// The notification templates service: create and patch call src/notifications/manage-templates.ts (checked at
// save; one active per facility, event, channel and locale).
import type { Id } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import type { CreatedFields } from '../../hooks/set-created'
import { changeTemplate, createTemplate } from '../../notifications/manage-templates'
import { ResourceService } from '../resource'
import type { NotificationTemplate } from './notification-templates.schema'
import {
  notificationTemplatePath,
  type NotificationTemplateData,
  type NotificationTemplatePatch,
  type NotificationTemplateQuery
} from './notification-templates.shared'

export const getOptions = (): StoreOptions => ({
  name: 'notification-templates',
  indexes: [
    // One active template per facility, event, channel and locale.
    { fields: { activeKey: 1 }, unique: true },
    // Rendering's look for the facility's active template; the managers' lists.
    { fields: { facility: 1, event: 1, channel: 1, active: 1, locale: 1 } },
    { fields: { facility: 1, createdAt: -1 } }
  ]
})

type TemplateParams = StoreParams<NotificationTemplateQuery>
type StoredTemplate = Stored<NotificationTemplate>

export class NotificationTemplateService extends ResourceService<
  StoredTemplate,
  NotificationTemplateData,
  NotificationTemplatePatch,
  NotificationTemplateQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, notificationTemplatePath, getOptions())
  }

  async create(
    data: NotificationTemplateData & CreatedFields,
    params?: TemplateParams
  ): Promise<StoredTemplate> {
    return this.write('create', null, params, () => createTemplate(this.deps, data))
  }

  async patch(id: Id, data: NotificationTemplatePatch, params: TemplateParams = {}): Promise<StoredTemplate> {
    return this.write('patch', id, params, async () =>
      changeTemplate(this.deps, await this.loadExisting(id, params), data, params.writeScope ?? null)
    )
  }
}
