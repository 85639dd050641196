// The `events` field: comma-separated patterns `<service-path>.<method>`, `<service-path>`, `<service-path>.*`
// or `*`, checked against the services this app has, and turned into `topics` the event recorder matches.
import { getServiceOptions } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { accessRules } from '../../access/rules'
import type { FieldError } from '../../schema/validators'
import { serviceByPath } from '../by-path'
import {
  ANCHOR_EVENT,
  EVENT_METHODS,
  UNSUBSCRIBABLE_PATHS,
  type EventMethod
} from '../../jobs/webhook-topics'

const clean = (path: string) => path.replace(/^\/+|\/+$/g, '')

/** Services whose events can be subscribed to: every service with access rules (who may read its documents), except
 *  UNSUBSCRIBABLE_PATHS; their methods are the exposed ones, or the `eventMethods` a service declares. */
export const eventServices = (app: Application): Map<string, EventMethod[]> => {
  const found = new Map<string, EventMethod[]>()
  for (const raw of Object.keys(app.services)) {
    const path = clean(raw)
    if (UNSUBSCRIBABLE_PATHS.includes(path) || !accessRules(app, path)) continue
    const service = serviceByPath(app, path)
    // A read-only service whose documents the server writes (the stock-movement ledger) names its events itself.
    const exposed: readonly string[] =
      (service as { eventMethods?: string[] }).eventMethods ?? getServiceOptions(service)?.methods ?? []
    found.set(
      path,
      EVENT_METHODS.filter((method) => exposed.includes(method))
    )
  }
  return found
}

export interface ParsedEvents {
  /** The patterns, trimmed and joined with "," */
  events: string
  /** One topic per pattern: `*`, `<path>.*` or `<path>.<method>` */
  topics: string[]
  errors: FieldError[]
}

/** Parses and checks an `events` value; `errors` names every unknown service, method or malformed pattern. */
export const parseEventPatterns = (app: Application, value: string, field = 'events'): ParsedEvents => {
  const services = eventServices(app)
  const patterns = value.split(',').map((part) => part.trim())
  const problems: string[] = []
  const topics = new Set<string>()
  if (patterns.every((p) => p === '')) problems.push('must name at least one pattern')
  for (const pattern of patterns) {
    if (pattern === '') continue
    if (pattern === '*') {
      topics.add('*')
      continue
    }
    if (pattern === ANCHOR_EVENT) {
      topics.add(ANCHOR_EVENT)
      continue
    }
    if (pattern === 'ping') {
      problems.push("'ping' is not a subscription (pings are sent on request with POST /webhook-events)")
      continue
    }
    const dot = pattern.lastIndexOf('.')
    const path = clean(dot === -1 ? pattern : pattern.slice(0, dot))
    const method = dot === -1 ? '*' : pattern.slice(dot + 1)
    if (!path || /\s/.test(pattern)) {
      problems.push(`'${pattern}' is not of the form <service>.<method>`)
      continue
    }
    const methods = services.get(path)
    if (!methods) {
      problems.push(`unknown service '${path}'`)
      continue
    }
    if (method !== '*' && !(methods as string[]).includes(method)) {
      problems.push(
        `unknown method '${method}' of '${path}' (it has ${methods.length ? methods.join(', ') : 'no events'})`
      )
      continue
    }
    topics.add(`${path}.${method}`)
  }
  return {
    events: patterns.filter((p) => p !== '').join(','),
    topics: [...topics],
    errors: problems.map((message) => ({ field, message }))
  }
}
