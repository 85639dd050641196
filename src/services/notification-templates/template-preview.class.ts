// POST /notification-templates/preview: renders a template — a stored one (`id`) or one being written
// (`template`) — with the sample data of its event (`sample` laid over it), checked as at save (400 naming `body`
// or `subject`), so staff see what patients will get. The facility's notification managers only: a stored
// template of a facility the caller belongs to but does not manage is a 403, anyone else's a 404; a template
// being written needs the caller to manage its `facility` (when named) or at least one facility.
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { invalid } from '../../schema/validators'
import { orNull } from '../../billing/store-calls'
import { organizationIds } from '../../access/context'
import { notificationFacilities } from '../../notifications/access'
import { checkNotificationManager } from '../../notifications/manage-access'
import { checkFacilityTemplate } from '../../notifications/manage-templates'
import type { TemplatePreview, TemplatePreviewData } from './notification-templates.schema'

export class TemplatePreviewService {
  constructor(
    _app: Application,
    private readonly deps: Deps
  ) {}

  async create(data: TemplatePreviewData, params: Params = {}): Promise<TemplatePreview> {
    const { deps } = this
    if ((data.id === undefined) === (data.template === undefined))
      throw invalid('data', [{ field: 'template', message: 'give either template or id' }])
    // (external calls are authenticated by the hook before this)
    const access = params.provider && params.account ? await deps.access.load(params.account) : undefined
    if (data.id !== undefined) {
      const stored = await orNull(deps.stores.notificationTemplates._get(data.id))
      if (!stored || (access && !organizationIds(access).includes(stored.facility)))
        throw new NotFound(`No template found for id '${data.id}'`)
      if (access) checkNotificationManager(access, stored.facility)
      return checkFacilityTemplate(deps, stored.facility, stored, data.sample)
    }
    const template = data.template!
    if (access) {
      if (template.facility !== undefined) checkNotificationManager(access, template.facility)
      else if (!notificationFacilities(access).length)
        throw new Forbidden("Previewing templates needs the 'notifications' privilege or superadmin")
    }
    return checkFacilityTemplate(deps, template.facility, template, data.sample)
  }
}
