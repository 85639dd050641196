// No hash, secret or token ever leaves the server: strips the named fields from responses and events.
import type { HookContext, NextFunction } from '../declarations'

const omit = (doc: any, fields: string[]) => {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return doc
  const copy = { ...doc }
  for (const field of fields) delete copy[field]
  return copy
}

export const hideSecrets =
  (...fields: string[]) =>
  async (context: HookContext, next: NextFunction) => {
    await next()
    const result: any = context.dispatch ?? context.result
    if (!result) return
    const safe = Array.isArray(result)
      ? result.map((doc) => omit(doc, fields))
      : context.method === 'find' && Array.isArray(result.data)
        ? { ...result, data: result.data.map((doc: any) => omit(doc, fields)) }
        : omit(result, fields)
    context.dispatch = safe
    if (context.params.provider) context.result = safe
  }
