// Bodies may carry `$` keys only where a service declares them (body operators); anything else — unknown
// `$` keys at any depth, `__proto__`/`constructor`/`prototype` keys, keys containing a `.` (NeDB refuses them
// and MongoDB reads them as paths) — is a 400, never passed to the datastore. Non-finite numbers (JSON `1e309`
// parses to Infinity) are a 400 in bodies and queries: the store would keep them as null.
import { BadRequest } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '@feathersjs/feathers' // (generic: no app types, so the client-side schemas need none)
import type { FieldError } from '../schema/validators'

const forbidden = new Set(['__proto__', 'constructor', 'prototype'])
const MAX_DEPTH = 32

export interface Finding extends FieldError {
  kind: 'key' | 'number'
}

const nonFinite = (value: unknown) => typeof value === 'number' && !Number.isFinite(value)
const notFinite = (field: string): Finding => ({ kind: 'number', field, message: 'must be a finite number' })

/** Why a body key is refused, or null when it is fine. */
const bodyKeyProblem = (key: string): string | null => {
  if (forbidden.has(key) || key.startsWith('$') || key.includes('\0')) return 'is not allowed'
  if (key.includes('.')) return 'must not contain a "."'
  return null
}
/** Query keys: only prototype-polluting names (operators and dotted paths are checked by the schemas). */
const queryKeyProblem = (key: string): string | null => (forbidden.has(key) ? 'is not allowed' : null)

/** One walk over a body or query: the first unsafe key or non-finite number, with its field path. */
export const findUnsafe = (
  value: unknown,
  keyProblem: (key: string) => string | null,
  path = '',
  depth = 0
): Finding | null => {
  if (nonFinite(value)) return notFinite(path || '(body)')
  if (!value || typeof value !== 'object') return null
  if (depth > MAX_DEPTH) return { kind: 'key', field: path || '(body)', message: 'is nested too deeply' }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafe(value[i], keyProblem, path ? `${path}.${i}` : String(i), depth + 1)
      if (found) return found
    }
    return null
  }
  for (const key of Object.keys(value)) {
    const here = path ? `${path}.${key}` : key
    const problem = keyProblem(key)
    if (problem) return { kind: 'key', field: here, message: problem }
    const found = findUnsafe((value as Record<string, unknown>)[key], keyProblem, here, depth + 1)
    if (found) return found
  }
  return null
}

/** The first non-finite number in a (coerced) query, or null. */
export const findNonFinite = (value: unknown): Finding | null => findUnsafe(value, () => null)

const refuse = (where: 'Body' | 'Query', found: Finding) => {
  const message =
    found.kind === 'number'
      ? `Invalid ${where === 'Body' ? 'data' : 'query'}: '${found.field}' ${found.message}`
      : `${where} key '${found.field}' ${found.message}`
  return new BadRequest(message, { errors: [{ field: found.field, message: found.message }] })
}

/**
 * Moves the body operators a service declares (`bodyOperators` on its options) from `context.data`
 * into `params.operators`, and refuses any other `$`-prefixed, dotted or prototype key in the body, prototype
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
