// The walk that finds what no store may be given: a key a policy refuses, a non-finite number (JSON `1e309` parses
// to Infinity, which the store would keep as null), or nesting deeper than documents ever have. Base, because the
// query validators (./validators.ts) and the body check of src/hooks/reject-unsafe-keys.ts both use it.
// (A finding is a FieldError of ./validators.ts, which imports this file: it names its fields itself.)

const MAX_DEPTH = 32

export interface Finding {
  kind: 'key' | 'number'
  field: string
  message: string
}

const nonFinite = (value: unknown) => typeof value === 'number' && !Number.isFinite(value)
const notFinite = (field: string): Finding => ({ kind: 'number', field, message: 'must be a finite number' })

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
