// Rendering a notification: the facility's active template for the event, channel and locale, else the built-in
// one of config/ (`notifications.templates`), through Mustache (logic-less: variables and sections only).
import Mustache from 'mustache'
import type { Deps } from '../deps'
import type { NotificationChannel, NotificationEvent } from './events'

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

/** Renders a Mustache template with `vars`; plain text (no HTML escaping: messages are text). */
export const renderTemplate = (
  template: { subject?: string; body: string },
  vars: Record<string, unknown>
) => ({
  ...(template.subject !== undefined
    ? { subject: Mustache.render(template.subject, vars, {}, { escape: String }) }
    : {}),
  body: Mustache.render(template.body, vars, {}, { escape: String })
})

/** The message of one notification. */
export const renderNotification = async (
  deps: Pick<Deps, 'settings'>,
  input: RenderInput
): Promise<Rendered> => {
  const template = deps.settings.get('notifications').templates[`${input.event}.${input.channel}`]
  if (!template) throw new Error(`No template for ${input.event} by ${input.channel}`)
  return renderTemplate(template, input.vars)
}
