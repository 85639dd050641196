// Writing a facility's message templates. Each is checked at save (src/notifications/templates.ts: it compiles,
// uses only its event's documented variables, an SMS fits). At most one template is active per facility, event,
// channel and locale: becoming active is a check-then-write under that combination's lock (`deps.locks`: in
// process and, with REDIS_URL, across instances), backed by a unique index on `activeKey` — the combination while
// the template is active, else a key unique to the template — so of two simultaneous ones one is stored and the
// other gets a 409 naming `active` and the current active template.
import { randomUUID } from 'node:crypto'
import { Conflict } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { within } from '../access/rules'
import { orNull } from '../billing/store-calls'
import {
  templateDefaults,
  type NotificationTemplate
} from '../services/notification-templates/notification-templates.schema'
import type {
  NotificationTemplateData,
  NotificationTemplatePatch
} from '../services/notification-templates/notification-templates.shared'
import { checkTemplate, type TemplateText } from './templates'

type StoredTemplate = Stored<NotificationTemplate>
type Combination = Pick<NotificationTemplate, 'facility' | 'event' | 'channel' | 'locale'>

const combinationKey = (t: Combination) => `${t.facility}|${t.event}|${t.channel}|${t.locale}`

/** The active key of a template: its combination while active, else one of its own. */
const activeKeyOf = (t: Combination & { active: boolean }) =>
  t.active ? `active:${combinationKey(t)}` : `inactive:${randomUUID()}`

/** The sample data a facility's templates are checked with: the sample, with the facility's own name. */
export const facilitySample = async (deps: Pick<Deps, 'stores'>, facility: string | undefined) => {
  const organization = facility ? await orNull(deps.stores.organizations._get(facility)) : null
  return organization?.name ? { facility: { name: organization.name } } : {}
}

/** Checks a template's texts with its facility's sample data (400 naming `subject` or `body`). */
export const checkFacilityTemplate = async (
  deps: Pick<Deps, 'stores'>,
  facility: string | undefined,
  template: TemplateText,
  sample: Record<string, unknown> = {}
) => {
  const own = await facilitySample(deps, facility)
  return checkTemplate(template, { ...own, ...sample })
}

const activeTaken = (current: StoredTemplate | undefined) =>
  new Conflict(
    `An active template of this event, channel and locale exists${current ? ` (${current.id})` : ''}`,
    {
      errors: [
        {
          field: 'active',
          message: 'the facility already has an active template of this event, channel and locale'
        }
      ],
      ...(current ? { template: current.id } : {})
    }
  )

/** The active template of a combination, if any (other than `except`). */
const activeOf = async (deps: Pick<Deps, 'stores'>, t: Combination, except?: string) =>
  (
    await deps.stores.notificationTemplates._find({
      query: {
        activeKey: `active:${combinationKey(t)}`,
        ...(except ? { id: { $ne: except } } : {}),
        $limit: 1
      },
      paginate: false
    })
  )[0]

/** Runs `write` as the one active template of its combination (409 naming `active` when another is). */
const asTheActiveOne = <T>(
  deps: Pick<Deps, 'stores' | 'locks'>,
  t: Combination,
  except: string | undefined,
  write: () => Promise<T>
) =>
  deps.locks.exclusive(`notification-template:${combinationKey(t)}`, async () => {
    const current = await activeOf(deps, t, except)
    if (current) throw activeTaken(current)
    try {
      return await write()
    } catch (error) {
      if (error instanceof Conflict) throw activeTaken(await activeOf(deps, t, except))
      throw error
    }
  })

/** Creates a template: defaults (locale "en", active), the checks, then stored (one active per combination). */
export const createTemplate = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'locks'>,
  data: NotificationTemplateData & { createdAt: number; createdBy: string | null }
): Promise<StoredTemplate> => {
  const doc = { ...templateDefaults, ...data, createdAt: deps.clock.now(), updatedAt: deps.clock.now() }
  await checkFacilityTemplate(deps, doc.facility, doc)
  const create = () => deps.stores.notificationTemplates._create({ ...doc, activeKey: activeKeyOf(doc) })
  return doc.active ? asTheActiveOne(deps, doc, undefined, create) : create()
}

/** Changes a template's locale, texts or `active` (checked as at create), within the caller's write scope. */
export const changeTemplate = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'locks'>,
  existing: StoredTemplate,
  changes: NotificationTemplatePatch,
  scope: Query | null = null
): Promise<StoredTemplate> => {
  const next = { ...existing, ...changes }
  await checkFacilityTemplate(deps, next.facility, next)
  const keyChanges = changes.active !== undefined || changes.locale !== undefined
  const update = {
    ...changes,
    ...(keyChanges ? { activeKey: activeKeyOf(next) } : {}),
    updatedAt: deps.clock.now()
  }
  const write = () =>
    deps.stores.notificationTemplates._patch(existing.id, update, { query: within({}, scope) })
  return keyChanges && next.active ? asTheActiveOne(deps, next, existing.id, write) : write()
}
