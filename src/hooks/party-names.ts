// Names for people on the answers of /appointments and /schedules (`names: { provider, patient, facility }`, and
// the facility's `timeZone` on an appointment), of /organization-members (`name`), and, asked with `$names=true`,
// on /audit-events (`actorName`, `actorRole`, `facilityName`; src/appointments/names.ts says what is disclosed).
// Added to what the caller receives (each document's client view), never stored; internal callers get the stored
// document.
import { getDispatch, setDispatch } from '@feathersjs/schema'
import type { HookContext, NextFunction } from '../declarations'
import type { Deps } from '../deps'
import { NameCache, withActorNames, withPartyNames } from '../appointments/names'

const docsOf = (result: unknown): Record<string, unknown>[] => {
  if (Array.isArray(result)) return result as Record<string, unknown>[]
  if (result && typeof result === 'object') {
    const page = result as { data?: unknown }
    if (Array.isArray(page.data)) return page.data as Record<string, unknown>[]
    return [result as Record<string, unknown>]
  }
  return []
}

type Decorate = (cache: NameCache, doc: Record<string, unknown>) => Promise<Record<string, unknown>>

// Replaces each document's client view by the decorated one (the same object when it has one, so the page's
// `dispatch` and the realtime events see it too).
// `internal`: internal calls' answers too (their realtime events go out as this view; the caller itself still
// receives the stored document).
const decorateDispatch = async (
  context: HookContext,
  deps: Pick<Deps, 'stores'>,
  decorate: Decorate,
  options: { internal?: boolean } = {}
) => {
  if (!context.params.provider && !options.internal) return
  const cache = new NameCache(deps)
  for (const doc of docsOf(context.result)) {
    const shown = getDispatch(doc) as Record<string, unknown> | null
    const decorated = await decorate(cache, shown ?? doc)
    if (shown) Object.assign(shown, decorated)
    else setDispatch(doc, decorated)
  }
  if (context.dispatch === undefined) {
    const result: unknown = context.result
    const docs = docsOf(result)
    const views = docs.map((doc) => getDispatch(doc) ?? doc)
    if (Array.isArray(result)) context.dispatch = views
    else if (result && typeof result === 'object' && Array.isArray((result as { data?: unknown }).data))
      context.dispatch = { ...(result as object), data: views }
    else context.dispatch = views[0]
  }
}

/** `around.all` hook of /appointments and /schedules, before their `externalView`. */
export const partyNames =
  (deps: Pick<Deps, 'stores'>) => async (context: HookContext, next: NextFunction) => {
    await next()
    await decorateDispatch(context, deps, (cache, doc) => withPartyNames(cache, doc))
  }

/**
 * `around.all` hook of /organization-members: the member's display name (`name`, null when the account has none)
 * for the colleagues who may list the organization's members — on answers and on the realtime events of every
 * change, an invitation accepted included.
 */
export const memberNames =
  (deps: Pick<Deps, 'stores'>) => async (context: HookContext, next: NextFunction) => {
    await next()
    await decorateDispatch(
      context,
      deps,
      async (cache, doc) => ({
        ...doc,
        name: typeof doc.uid === 'string' ? await cache.person(doc.uid) : null
      }),
      { internal: true }
    )
  }

/** /audit-events: `$names=true` (REST: the string "true") adds the actor's display name and role. */
export const actorNames =
  (deps: Pick<Deps, 'stores'>) => async (context: HookContext, next: NextFunction) => {
    const query = context.params.query as Record<string, unknown> | undefined
    const asked = query?.$names === true || query?.$names === 'true'
    if (query && '$names' in query) {
      const { $names: _names, ...rest } = query
      context.params = { ...context.params, query: rest }
    }
    await next()
    if (asked && !(context.params as { csv?: boolean }).csv) {
      await decorateDispatch(context, deps, async (cache, doc) => ({
        ...doc,
        ...(await withActorNames(
          cache,
          doc as { actor?: string | null; patient?: string; facility?: string }
        ))
      }))
    }
  }
