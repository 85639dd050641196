// Message templates: the variables each event offers (one table, read by the triggers that fill them and by the
// checks of a template at save and preview), sample data to render with, and the checks themselves.
// A template is Mustache (logic-less: variables and sections, no partials). It may use only the documented
// variables of its event and channel: no record field is a variable, so no template can put a record's clinical
// contents into a message. At save (and preview) a template must compile, use only those variables, and an SMS
// rendered with the sample data must fit in 480 characters.
import { BadRequest } from '@feathersjs/errors'
import Mustache from 'mustache'
import type { Deps } from '../deps'
import type { FieldError } from '../schema/validators'
import { formatLocal } from '../appointments/zone'
import type { NotificationChannel, NotificationEvent } from './events'

/** The longest SMS (rendered with the sample data) a template may produce: three concatenated segments. */
export const SMS_MAX_LENGTH = 480

const everyone = ['patient.firstName', 'patient.lastName', 'facility.name', 'link']
const appointment = [...everyone, 'appointment.start', 'appointment.provider']

/**
 * The variables of each event, as dotted paths (`{{patient.firstName}}`). `appointment.start` is the start
 * formatted in the facility's time zone and the patient's locale; `link` is the console page about the subject
 * (the appointment, the queue ticket, the results, the invoice) — never its contents.
 */
export const templateVariables: Record<NotificationEvent, string[]> = {
  'appointment.booked': appointment,
  'appointment.rescheduled': [...appointment, 'appointment.previousStart'],
  'appointment.cancelled': appointment,
  'appointment.reminder': appointment,
  'queue.next': [...everyone, 'queue.name', 'queue.number', 'queue.position'],
  'queue.called': [...everyone, 'queue.name', 'queue.number'],
  'record.finalized': everyone,
  'invoice.finalized': [...everyone, 'invoice.total', 'invoice.balance', 'invoice.currency']
}

/** Variables only one channel has: every email carries its one-click unsubscribe link. */
export const channelVariables: Record<NotificationChannel, string[]> = {
  email: ['unsubscribeLink'],
  sms: []
}

/** The variables a template of `event` on `channel` may use. */
export const variablesOf = (event: NotificationEvent, channel: NotificationChannel) => [
  ...templateVariables[event],
  ...channelVariables[channel]
]

// The sample instants: a Thursday morning, and the day before for a rescheduled appointment.
const SAMPLE_START = Date.UTC(2030, 2, 14, 1, 30)
const SAMPLE_ZONE = 'Asia/Manila'

const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value)

/** `base` with `over` laid on it, nested objects merged. */
const merged = (base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> => {
  const result: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over)) {
    const current = result[key]
    result[key] = isObject(current) && isObject(value) ? merged(current, value) : value
  }
  return result
}

/** Keeps only the documented `paths` of `vars`. */
const only = (vars: Record<string, unknown>, paths: string[]) => {
  const result: Record<string, unknown> = {}
  for (const path of paths) {
    const [head, tail] = path.split('.') as [string, string | undefined]
    if (tail === undefined) {
      if (head in vars) result[head] = vars[head]
      continue
    }
    const group = vars[head]
    if (!isObject(group) || !(tail in group)) continue
    result[head] = { ...(isObject(result[head]) ? result[head] : {}), [tail]: group[tail] }
  }
  return result
}

/**
 * Sample data of `event` (every documented variable, realistic lengths), with `overrides` laid over it: what
 * previews render and what the SMS length check at save measures.
 */
export const sampleVars = (
  event: NotificationEvent,
  overrides: Record<string, unknown> = {}
): Record<string, unknown> => {
  const all: Record<string, unknown> = {
    patient: { firstName: 'Maria Isabel', lastName: 'Dela Cruz-Santos' },
    facility: { name: 'Sample Family Health Clinic' },
    link: 'https://console.example.org/p/5f0c8a1e2b3d4c5e6f708192',
    unsubscribeLink:
      'https://api.example.org/notifications/unsubscribe?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI1ZjBjOGExZTJiM2Q0YzVlNmY3MDgxOTIifQ.sig',
    appointment: {
      start: formatLocal(SAMPLE_START, SAMPLE_ZONE, 'en'),
      previousStart: formatLocal(SAMPLE_START - 86_400_000, SAMPLE_ZONE, 'en'),
      provider: 'Dr. Jose Protacio Rizal'
    },
    queue: { name: 'Front desk', number: 42, position: 2 },
    invoice: { total: 'PHP 1,250.00', balance: 'PHP 250.00', currency: 'PHP' }
  }
  const paths = [...templateVariables[event], ...channelVariables.email]
  return merged(only(all, paths), overrides)
}

/** The names a template uses, by their full dotted path; compile errors are thrown as Mustache reports them. */
type Token = [string, string, number, number, Token[]?, ...unknown[]]

/** Where `name`, used inside the sections `scopes` (innermost last), may resolve among `documented`. */
const resolveName = (name: string, scopes: string[], documented: string[]): string | undefined => {
  const candidates = [...[...scopes].reverse().map((scope) => `${scope}.${name}`), name]
  return candidates.find(
    (candidate) => documented.includes(candidate) || documented.some((v) => v.startsWith(`${candidate}.`))
  )
}

/**
 * The problems of one template text against the documented variables: a text that does not compile, partials,
 * or names that are no documented variable (each listed). Empty when it is fine.
 */
export const textProblems = (text: string, documented: string[]): string | undefined => {
  let tokens: Token[]
  try {
    tokens = Mustache.parse(text) as unknown as Token[]
  } catch (error) {
    return `does not compile: ${error instanceof Error ? error.message : String(error)}`
  }
  const unknown = new Set<string>()
  let partials = false
  const walk = (list: Token[], scopes: string[]) => {
    for (const token of list) {
      const [kind, name] = token
      if (kind === '>') partials = true
      else if (kind === 'name' || kind === '&' || kind === '{') {
        if (name === '.' ? scopes.length === 0 : !resolveName(name, scopes, documented)) unknown.add(name)
      } else if (kind === '#' || kind === '^') {
        const path = resolveName(name, scopes, documented)
        if (!path) unknown.add(name)
        walk(token[4] ?? [], path ? [...scopes, path] : scopes)
      }
    }
  }
  walk(tokens, [])
  if (partials) return 'may not use partials ({{> name}})'
  if (unknown.size)
    return `uses unknown variables: ${[...unknown].join(', ')} (known: ${documented.join(', ')})`
  return undefined
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

export interface TemplateText {
  event: NotificationEvent
  channel: NotificationChannel
  subject?: string
  body: string
}

/**
 * Checks a template (see the top of this file) and answers its render with the sample data (`sample` laid over
 * it). Throws a 400 naming `subject` or `body`; an SMS too long carries its sample render in the error's data.
 */
export const checkTemplate = (template: TemplateText, sample: Record<string, unknown> = {}) => {
  const documented = variablesOf(template.event, template.channel)
  const errors: FieldError[] = []
  if (template.channel === 'email') {
    if (template.subject === undefined || template.subject.trim() === '')
      errors.push({ field: 'subject', message: 'is required for email' })
    else {
      const problem = textProblems(template.subject, documented)
      if (problem) errors.push({ field: 'subject', message: problem })
    }
  } else if (template.subject !== undefined) {
    errors.push({ field: 'subject', message: 'is for email only (an SMS has none)' })
  }
  const problem = textProblems(template.body, documented)
  if (problem) errors.push({ field: 'body', message: problem })
  if (errors.length)
    throw new BadRequest(`Invalid data: ${errors.map((e) => `'${e.field}' ${e.message}`).join('; ')}`, {
      errors
    })
  const rendered = renderTemplate(template, sampleVars(template.event, sample))
  if (template.channel === 'sms' && rendered.body.length > SMS_MAX_LENGTH) {
    const message = `renders to ${rendered.body.length} characters with the sample data (at most ${SMS_MAX_LENGTH})`
    throw new BadRequest(`Invalid data: 'body' ${message}`, {
      errors: [{ field: 'body', message }],
      sample: rendered
    })
  }
  return rendered
}

/** The built-in template of `event` on `channel` (config `notifications.templates["<event>.<channel>"]`). */
export const builtInTemplate = (
  deps: Pick<Deps, 'settings'>,
  event: NotificationEvent,
  channel: NotificationChannel
) => {
  const template = deps.settings.get('notifications').templates[`${event}.${channel}`]
  if (!template) throw new Error(`No built-in template for ${event} by ${channel}`)
  return template
}
