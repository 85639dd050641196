// Bodies may carry `$` keys only where a service declares them (body operators); anything else — unknown
// `$` keys at any depth, `__proto__`/`constructor`/`prototype` keys — is a 400, never passed to the datastore.
import { BadRequest } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'

const forbidden = new Set(['__proto__', 'constructor', 'prototype'])

const findUnsafeKey = (value: unknown, path: string, depth: number): string | null => {
  if (depth > 32) return path || '(body)'
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafeKey(value[i], `${path}.${i}`, depth + 1)
      if (found) return found
    }
    return null
  }
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const here = path ? `${path}.${key}` : key
      if (forbidden.has(key) || key.startsWith('$') || key.includes('\0')) return here
      const found = findUnsafeKey((value as any)[key], here, depth + 1)
      if (found) return found
    }
  }
  return null
}

/** Checks query keys for prototype-polluting names (operators themselves are checked by the schemas). */
const findPollutingKey = (value: unknown, path: string, depth: number): string | null => {
  if (depth > 32 || !value || typeof value !== 'object') return null
  for (const key of Object.keys(value)) {
    const here = path ? `${path}.${key}` : key
    if (forbidden.has(key)) return here
    const found = findPollutingKey((value as any)[key], here, depth + 1)
    if (found) return found
  }
  return null
}

/**
 * Moves the body operators a service declares (`bodyOperators` on its options) from `context.data`
 * into `params.operators`, and refuses any other `$`-prefixed or prototype key in the body or query.
 */
export const rejectUnsafeKeys = async (context: HookContext, next: NextFunction) => {
  const pollutedQuery = context.params.provider ? findPollutingKey(context.params.query, '', 0) : null
  if (pollutedQuery) throw new BadRequest(`Query key '${pollutedQuery}' is not allowed`, { errors: [{ field: pollutedQuery, message: 'is not allowed' }] })

  if (['create', 'update', 'patch'].includes(context.method) && context.data !== undefined) {
    const declared: string[] = (context.service as any)?.bodyOperators ?? []
    const data = context.data
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const operators: Record<string, unknown> = {}
      const rest: Record<string, unknown> = {}
      for (const key of Object.keys(data)) {
        if (declared.includes(key)) operators[key] = (data as any)[key]
        else rest[key] = (data as any)[key]
      }
      // Server code calling services internally may pass update operators; clients may not.
      const unsafe = context.params.provider ? findUnsafeKey(rest, '', 0) : null
      if (unsafe) throw new BadRequest(`Body key '${unsafe}' is not allowed`, { errors: [{ field: unsafe, message: 'is not allowed' }] })
      context.data = rest
      context.params = { ...context.params, operators }
    }
  }
  await next()
}
