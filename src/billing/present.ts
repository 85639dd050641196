// What billing documents look like to clients: internal bookkeeping (reservation counters, cascade and
// finalize markers, revisions) never leaves the server; items gain `paid` and `balance`.
import type { Application, HookContext, NextFunction } from '../declarations'

const omit = (doc: any, fields: string[]) => {
  const copy = { ...doc }
  for (const field of fields) delete copy[field]
  return copy
}

type Presenter = (doc: any, app: Application) => any

export const presentPlain: Presenter = (doc) => doc

const presenters: Record<string, Presenter> = {}

/** Other domains declare the client view of their documents here (used by `present` and `announceChange`). */
export const registerPresenter = (path: string, presenter: Presenter) => {
  presenters[path] = presenter
}

/** A presenter that leaves internal bookkeeping fields out. */
export const omitting =
  (fields: string[]): Presenter =>
  (doc) =>
    omit(doc, fields)

/** The client view of a document of `path`. */
export const present = (app: Application, path: string, doc: any) => (doc && typeof doc === 'object' ? (presenters[path] ?? presentPlain)(doc, app) : doc)

/** Around hook: results and events carry the client view. */
export const presentResults = (path: string) => async (context: HookContext, next: NextFunction) => {
  await next()
  const result: any = context.result
  if (!result) return
  const map = (doc: any) => present(context.app, path, doc)
  const shown = Array.isArray(result)
    ? result.map(map)
    : context.method === 'find' && Array.isArray(result.data)
      ? { ...result, data: result.data.map(map) }
      : map(result)
  context.result = shown
  context.dispatch = shown
}
