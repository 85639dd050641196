// Bodies may carry `$` keys only where a service declares them (body operators); anything else — unknown
// `$` keys at every depth, `__proto__`/`constructor`/`prototype` keys, keys containing a `.` (NeDB refuses them
// and MongoDB reads them as paths) — is a 400, never passed to the datastore. Non-finite numbers (JSON `1e309`
// parses to Infinity) are a 400 in bodies and queries: the store would keep them as null.
import { BadRequest } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '@feathersjs/feathers' // (generic: no app types, so the client-side schemas need none)
import { findUnsafe, type Finding } from '../schema/unsafe-values'

const forbidden = new Set(['__proto__', 'constructor', 'prototype'])

/** Why a body key is refused, or null when it is fine. */
const bodyKeyProblem = (key: string): string | null => {
  if (forbidden.has(key) || key.startsWith('$') || key.includes('\0')) return 'is not allowed'
  if (key.includes('.')) return 'must not contain a "."'
  return null
}
/** Query keys: only prototype-polluting names (operators and dotted paths are checked by the schemas). */
const queryKeyProblem = (key: string): string | null => (forbidden.has(key) ? 'is not allowed' : null)

const refuse = (where: 'Body' | 'Query', found: Finding) => {
  const message =
    found.kind === 'number'
      ? `Invalid ${where === 'Body' ? 'data' : 'query'}: '${found.field}' ${found.message}`
      : `${where} key '${found.field}' ${found.message}`
  return new BadRequest(message, { errors: [{ field: found.field, message: found.message }] })
}

/**
 * Moves the body operators a service declares (`bodyOperators` on its options) from `context.data`
 * into `params.operators`, and refuses every other `$`-prefixed, dotted or prototype key in the body, prototype
 * keys in the query, and non-finite numbers in either (ids are checked by require-scalar-id.ts).
 */
export const rejectUnsafeKeys = async (context: HookContext, next: NextFunction) => {
  const external = Boolean(context.params.provider)
  const unsafeQuery = external ? findUnsafe(context.params.query, queryKeyProblem) : null
  if (unsafeQuery) throw refuse('Query', unsafeQuery)

  if (['create', 'update', 'patch'].includes(context.method) && context.data !== undefined) {
    const declared: string[] =
      (context.service as { bodyOperators?: string[] } | undefined)?.bodyOperators ?? []
    const data = context.data
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const operators: Record<string, unknown> = {}
      const rest: Record<string, unknown> = {}
      for (const key of Object.keys(data)) {
        if (declared.includes(key)) operators[key] = (data as Record<string, unknown>)[key]
        else rest[key] = (data as Record<string, unknown>)[key]
      }
      // Server code calling services internally may pass update operators and dotted paths; clients may not.
      const unsafe = external ? findUnsafe(rest, bodyKeyProblem) : null
      if (unsafe) throw refuse('Body', unsafe)
      context.data = rest
      context.params = { ...context.params, operators }
    } else if (external) {
      // Arrays (multi create) and scalars: the services refuse what they do not support; check what is inside.
      const unsafe = findUnsafe(data, bodyKeyProblem)
      if (unsafe) throw refuse('Body', unsafe)
    }
  }
  await next()
}
