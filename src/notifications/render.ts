// Rendering a notification: the facility's active template for the event, channel and locale (else its active one
// in "en"), else the built-in one of config/ (`notifications.templates`), through Mustache (logic-less: variables
// and sections only; src/notifications/templates.ts documents the variables of each event).
import type { Deps } from '../deps'
import type { NotificationChannel, NotificationEvent } from './events'
import { builtInTemplate, renderTemplate } from './templates'

export { renderTemplate }

export interface RenderInput {
  facility: string
  event: NotificationEvent
  channel: NotificationChannel
  locale: string
  /** The event's variables (patient, facility, appointment, queue, invoice, link …). */
  vars: Record<string, unknown>
}

export interface Rendered {
  subject?: string
  body: string
}

/** The template a notification is rendered with: the facility's active one in `locale`, else in "en", else the
 *  built-in one. */
export const templateFor = async (
  deps: Pick<Deps, 'settings' | 'stores'>,
  input: Omit<RenderInput, 'vars'>
): Promise<{ subject?: string; body: string }> => {
  const locales = [...new Set([input.locale, 'en'])]
  const own = await deps.stores.notificationTemplates._find({
    query: {
      facility: input.facility,
      event: input.event,
      channel: input.channel,
      active: true,
      locale: { $in: locales }
    },
    paginate: false
  })
  const chosen = locales.map((locale) => own.find((t) => t.locale === locale)).find((t) => t !== undefined)
  if (chosen)
    return chosen.subject !== undefined
      ? { subject: chosen.subject, body: chosen.body }
      : { body: chosen.body }
  return builtInTemplate(deps, input.event, input.channel)
}

/** The templates of `channels` for one event (one read of the facility's templates for them all). */
export const templatesFor = async (
  deps: Pick<Deps, 'settings' | 'stores'>,
  input: { facility: string; event: NotificationEvent; locale: string },
  channels: NotificationChannel[]
): Promise<Map<NotificationChannel, { subject?: string; body: string }>> => {
  const locales = [...new Set([input.locale, 'en'])]
  const own = await deps.stores.notificationTemplates._find({
    query: { facility: input.facility, event: input.event, active: true, locale: { $in: locales } },
    paginate: false
  })
  const found = new Map<NotificationChannel, { subject?: string; body: string }>()
  for (const channel of channels) {
    const chosen = locales
      .map((locale) => own.find((t) => t.locale === locale && t.channel === channel))
      .find((t) => t !== undefined)
    found.set(
      channel,
      chosen
        ? chosen.subject !== undefined
          ? { subject: chosen.subject, body: chosen.body }
          : { body: chosen.body }
        : builtInTemplate(deps, input.event, channel)
    )
  }
  return found
}

/** The message of one notification. */
export const renderNotification = async (
  deps: Pick<Deps, 'settings' | 'stores'>,
  input: RenderInput
): Promise<Rendered> => renderTemplate(await templateFor(deps, input), input.vars)
