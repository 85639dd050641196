// The embedded engine's query matcher and sort order, with MongoDB's semantics for the portable query subset, so
// both engines answer every query alike. NeDB's own matcher differs from MongoDB's: `$ne`/`$nin` on an array field
// matched when some element differed, `null` did not match a missing field (`{ f: null }`, `$in: [null]`), `$ne: null`
// matched a missing field, and two range bounds on an array field had to hold for one element. Its sort order put
// a missing field before `null` and compared arrays element by element.
//
// MongoDB's rules, as implemented here (a field path may be dotted; an array met on the way is looked into, one
// level: `permissions.uid` is each element's `uid`):
// - `{ f: v }` matches when f equals v, or f is an array with an element equal to v (or equal to v as a whole).
//   Equality is by type: a number never equals a string; objects are equal with the same fields in the same order.
// - `{ f: null }` and `$in: [null]` match a missing f, a null f, and an array f holding null (not an empty array).
// - `$ne: v` and `$nin: [...]` are the exact negations of `{ f: v }` and `$in`: `{ tags: { $ne: 'x' } }` matches
//   the documents whose tags contain no 'x' (an empty array and a missing field included); `$ne: null` matches
//   where f is present and not null.
// - `$lt`/`$lte`/`$gt`/`$gte` compare only values of the same type (numbers with numbers, strings with strings,
//   booleans, dates); a missing field matches none of them, except `$lte: null`/`$gte: null` which mean `null`.
//   On an array each operator holds when some element satisfies it (not necessarily the same element for all).
// - `$exists`, `$size` (array length), `$elemMatch` (some element matches: a query on the element's fields, or
//   operators on the element itself), `$and`, `$or`.
// - Sorting: an empty array < null = missing < numbers < strings < objects < arrays < booleans < dates; an array
//   sorts by its smallest element ascending and by its largest descending. Strings by code point.
// This replaces NeDB's `model.match`, which its cursors, updates and removes call through the module object; the
// replacement is written for @seald-io/nedb NEDB_VERSION exactly (test/store/query-semantics.test.ts fails when
// the installed version differs or when NeDB stops calling it; test/store/nedb-internals.test.ts when `match` or
// its callers change). NEDB_VERSION is the version every override of NeDB's internals in this folder was written for.
import { createRequire } from 'node:module'

/** The @seald-io/nedb version whose `model.match` calls this module replaces. */
export const NEDB_VERSION = '4.1.2'

type Doc = Record<string, unknown>

const isDate = (value: unknown): value is Date => value instanceof Date
const isRegExp = (value: unknown): value is RegExp => value instanceof RegExp
const isObject = (value: unknown): value is Doc =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !isDate(value) && !isRegExp(value)
const isOperatorObject = (value: unknown): value is Doc => {
  if (!isObject(value)) return false
  const keys = Object.keys(value)
  return keys.length > 0 && keys[0].startsWith('$')
}

// ---------------------------------------------------------------------------------------------------------------
// Values: MongoDB's (BSON) type order and comparison.

/** BSON's canonical type order (null and missing are one). */
const rank = (value: unknown): number => {
  if (value === undefined || value === null) return 1
  if (typeof value === 'number') return 2
  if (typeof value === 'string') return 3
  if (Array.isArray(value)) return 5
  if (typeof value === 'boolean') return 6
  if (isDate(value)) return 7
  if (isRegExp(value)) return 8
  return 4
}

/** Strings by code point (MongoDB's binary UTF-8 order), not by UTF-16 unit. */
const compareStrings = (a: string, b: string): number => {
  if (a === b) return 0
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // A surrogate (a code point past U+FFFF) sorts after every other unit.
    const surrogateX = x >= 0xd800 && x <= 0xdfff
    const surrogateY = y >= 0xd800 && y <= 0xdfff
    if (surrogateX !== surrogateY) return surrogateX ? 1 : -1
    return x < y ? -1 : 1
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0
}

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0)

/** MongoDB's comparison of two values (null and missing equal), as for sorting: -1, 0 or 1. */
export const compareValues = (a: unknown, b: unknown): number => {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra < rb ? -1 : 1
  switch (ra) {
    case 1:
      return 0
    case 2: {
      const x = a as number
      const y = b as number
      // (NaN sorts before every other number)
      if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : -1) : 1
      return sign(x - y)
    }
    case 3:
      return compareStrings(a as string, b as string)
    case 5: {
      const x = a as unknown[]
      const y = b as unknown[]
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const result = compareValues(x[i], y[i])
        if (result !== 0) return result
      }
      return sign(x.length - y.length)
    }
    case 6:
      return a === b ? 0 : a ? 1 : -1
    case 7:
      return sign((a as Date).getTime() - (b as Date).getTime())
    case 8:
      return compareStrings(String(a), String(b))
    default: {
      // Objects: field by field in their order (type, then name, then value); fewer fields first.
      const x = Object.entries(a as object).filter(([, value]) => value !== undefined)
      const y = Object.entries(b as object).filter(([, value]) => value !== undefined)
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const byType = sign(rank(x[i][1]) - rank(y[i][1]))
        if (byType !== 0) return byType
        const byName = compareStrings(x[i][0], y[i][0])
        if (byName !== 0) return byName
        const byValue = compareValues(x[i][1], y[i][1])
        if (byValue !== 0) return byValue
      }
      return sign(x.length - y.length)
    }
  }
}

/** MongoDB equality: same type and value (null equals null only; missing is handled by the callers). */
const equal = (a: unknown, b: unknown): boolean => {
  if (a === b) return a !== undefined
  if (a === undefined || b === undefined || a === null || b === null) return false
  if (typeof a !== 'object' || typeof b !== 'object') return false
  return rank(a) === rank(b) && compareValues(a, b) === 0
}

/** An empty array's sort key: before null and missing. */
const EMPTY = Symbol('empty array')

/**
 * The value a document sorts by for one key and direction, as MongoDB picks it: an array by its smallest element
 * ascending and its largest descending (an empty array before null and missing).
 */
export const sortKey = (value: unknown, direction: number): unknown => {
  if (!Array.isArray(value)) return value
  if (value.length === 0) return EMPTY
  let best: unknown = value[0]
  for (let i = 1; i < value.length; i++) {
    const result = compareValues(value[i], best)
    if (direction > 0 ? result < 0 : result > 0) best = value[i]
  }
  return best
}

/** The value a document sorts by for a (possibly dotted) field and a direction (see `sortKey`). */
export const sortKeyOf = (doc: unknown, path: string, direction: number): unknown => {
  const values = valuesOf(doc, path)
  if (values.length === 1) return sortKey(values[0], direction)
  // Several values (a path through an array): the smallest or largest of all of them, elements of arrays included.
  const all: unknown[] = []
  for (const value of values) {
    if (Array.isArray(value)) all.push(...value)
    else all.push(value === undefined ? null : value)
  }
  return sortKey(all, direction)
}

/** Compares two sort keys from `sortKey`. */
export const compareSortKeys = (a: unknown, b: unknown): number => {
  if (a === EMPTY || b === EMPTY) return a === b ? 0 : a === EMPTY ? -1 : 1
  return compareValues(a, b)
}

// ---------------------------------------------------------------------------------------------------------------
// Field paths.

/**
 * The values a dotted path reaches in a document, as MongoDB looks them up: through a nested object by name;
 * through an array by position when the part is a number, and into each element that is an object. `undefined`
 * stands for "missing here" (a missing field, or an element without it).
 */
const valuesAt = (value: unknown, parts: string[], from = 0, out: unknown[] = []): unknown[] => {
  if (from === parts.length) {
    out.push(value)
    return out
  }
  const part = parts[from]
  if (Array.isArray(value)) {
    if (/^\d+$/.test(part)) valuesAt(value[Number(part)], parts, from + 1, out)
    for (const element of value) if (isObject(element)) valuesAt(element[part], parts, from + 1, out)
    return out
  }
  if (isObject(value)) return valuesAt(value[part], parts, from + 1, out)
  out.push(undefined)
  return out
}

// Pure memoization per process: a dotted field name always splits the same way, in every app.
const pathCache = new Map<string, string[]>()
const partsOf = (path: string) => {
  let parts = pathCache.get(path)
  if (!parts) {
    parts = path.split('.')
    if (pathCache.size > 10000) pathCache.clear()
    pathCache.set(path, parts)
  }
  return parts
}

const valuesOf = (doc: unknown, path: string): unknown[] => {
  if (!path.includes('.')) return [isObject(doc) ? doc[path] : undefined]
  return valuesAt(doc, partsOf(path))
}

// ---------------------------------------------------------------------------------------------------------------
// Conditions on one value (each reached value of a path; a condition holds when it holds for one of them).

/** `{ f: v }` for one reached value: equal, or an array holding an equal element; `null` also means missing. */
const equalsAt = (value: unknown, wanted: unknown): boolean => {
  if (wanted === null)
    return value === undefined || value === null || (Array.isArray(value) && value.includes(null))
  if (isRegExp(wanted)) return regexAt(value, wanted)
  if (equal(value, wanted)) return true
  return Array.isArray(value) && value.some((element) => equal(element, wanted))
}

const regexAt = (value: unknown, pattern: RegExp): boolean => {
  const test = (item: unknown) =>
    typeof item === 'string' && (pattern.lastIndex = 0) === 0 && pattern.test(item)
  return test(value) || (Array.isArray(value) && value.some(test))
}

/** The same type bracket for a range comparison (numbers, strings, booleans, dates; objects and arrays too). */
const comparable = (a: unknown, b: unknown) => a !== undefined && a !== null && rank(a) === rank(b)

const rangeAt = (value: unknown, operator: string, bound: unknown): boolean => {
  // `$lte: null` and `$gte: null` are equality with null; `$lt`/`$gt` null match nothing.
  if (bound === null) return operator === '$lte' || operator === '$gte' ? equalsAt(value, null) : false
  const holds = (item: unknown) => {
    if (!comparable(item, bound)) return false
    const result = compareValues(item, bound)
    return operator === '$lt'
      ? result < 0
      : operator === '$lte'
        ? result <= 0
        : operator === '$gt'
          ? result > 0
          : result >= 0
  }
  return holds(value) || (Array.isArray(value) && value.some(holds))
}

const someValue = (values: unknown[], test: (value: unknown) => boolean) => {
  for (const value of values) if (test(value)) return true
  return false
}

const inList = (values: unknown[], list: unknown, operator: string): boolean => {
  if (!Array.isArray(list)) throw new Error(`${operator} needs an array`)
  return someValue(values, (value) => list.some((wanted) => equalsAt(value, wanted)))
}

const sizeOf = (size: unknown) => {
  if (typeof size !== 'number' || !Number.isInteger(size)) throw new Error('$size needs an integer')
  return size
}

/** One `{ $operator: argument }` of a field's condition, over the values the path reaches. */
const operatorHolds = (values: unknown[], operator: string, argument: unknown, condition: Doc): boolean => {
  switch (operator) {
    case '$eq':
      return someValue(values, (value) => equalsAt(value, argument))
    case '$ne':
      return !someValue(values, (value) => equalsAt(value, argument))
    case '$in':
      return inList(values, argument, operator)
    case '$nin':
      return !inList(values, argument, operator)
    case '$lt':
    case '$lte':
    case '$gt':
    case '$gte':
      return someValue(values, (value) => rangeAt(value, operator, argument))
    case '$exists':
      return someValue(values, (value) => value !== undefined) === !!argument
    case '$size': {
      const size = sizeOf(argument)
      return someValue(values, (value) => Array.isArray(value) && value.length === size)
    }
    case '$elemMatch': {
      if (!isObject(argument)) throw new Error('$elemMatch needs an object')
      // Operators on the element itself (`{ $gt: 1 }`), or a query on its fields (`$and`/`$or` included).
      const first = Object.keys(argument)[0]
      const onElement = first !== undefined && first.startsWith('$') && first !== '$and' && first !== '$or'
      return someValue(
        values,
        (value) =>
          Array.isArray(value) &&
          value.some((element) =>
            onElement ? conditionHolds([element], argument) : isObject(element) && matches(element, argument)
          )
      )
    }
    case '$regex': {
      const pattern = isRegExp(argument)
        ? argument
        : new RegExp(String(argument), typeof condition.$options === 'string' ? condition.$options : '')
      return someValue(values, (value) => regexAt(value, pattern))
    }
    case '$options':
      return true
    case '$not':
      return !conditionHolds(values, argument)
    default:
      throw new Error(`Unknown comparison function ${operator}`)
  }
}

/** A field's condition (a value, or an object of operators) over the values its path reaches. */
const conditionHolds = (values: unknown[], condition: unknown): boolean => {
  if (isOperatorObject(condition)) {
    for (const key of Object.keys(condition)) {
      if (!key.startsWith('$')) throw new Error('You cannot mix operators and normal fields')
      if (!operatorHolds(values, key, condition[key], condition)) return false
    }
    return true
  }
  return someValue(values, (value) => equalsAt(value, condition))
}

/** Whether `doc` matches `query`, with MongoDB's semantics (see the top of this file). */
export const matches = (doc: Doc, query: unknown): boolean => {
  if (!isObject(query)) throw new Error('A query must be an object')
  for (const key of Object.keys(query)) {
    const condition = query[key]
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(condition)) throw new Error(`${key} operator used without an array`)
      const holds =
        key === '$and'
          ? condition.every((part) => matches(doc, part))
          : condition.some((part) => matches(doc, part))
      if (!holds) return false
    } else if (key.startsWith('$')) throw new Error(`Unknown logical operator ${key}`)
    else if (!conditionHolds(valuesOf(doc, key), condition)) return false
  }
  return true
}

// ---------------------------------------------------------------------------------------------------------------
// The override: NeDB's cursors, updates and removes call `model.match` through the module object.

const nedbRequire = createRequire(require.resolve('@seald-io/nedb'))

/** The installed @seald-io/nedb version. */
export const installedNedbVersion = (): string => nedbRequire('./package.json').version

// The matcher is installed into the NeDB module, which the whole process shares: once per process, not per app.
let installed = false

/**
 * Makes NeDB match with `matches` (once per process). Refuses to run on another NeDB version than NEDB_VERSION,
 * whose internals it was not checked against.
 */
export const useMongoMatching = () => {
  if (installed) return
  const version = installedNedbVersion()
  if (version !== NEDB_VERSION) {
    throw new Error(
      `The embedded engine's matcher replaces @seald-io/nedb ${NEDB_VERSION}'s model.match; ${version} is installed: check its internals and update src/store/engines/nedb/match.ts`
    )
  }
  const model = nedbRequire('./lib/model.js')
  if (typeof model.match !== 'function')
    throw new Error(`@seald-io/nedb ${version} has no model.match to replace`)
  model.match = matches
  installed = true
}
