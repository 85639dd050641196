// Shared Ajv instances and validation hooks whose 400 errors name each offending field.
import { Ajv, addFormats, type FormatsPluginOptions } from '@feathersjs/schema'
import { BadRequest } from '@feathersjs/errors'
import type { TSchema } from '@feathersjs/typebox'
import type { HookContext, NextFunction } from '@feathersjs/feathers' // (generic: no app types, so the client-side schemas need none)
import { findNonFinite } from './unsafe-values'

const formats: FormatsPluginOptions = [
  'date-time',
  'time',
  'date',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uri',
  'uri-reference',
  'uuid',
  'uri-template',
  'json-pointer',
  'relative-json-pointer',
  'regex'
]

export const dataValidator: Ajv = addFormats(
  new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, strict: false }),
  formats
)

/** Is `name` an IANA time zone of the runtime's time-zone data ("Europe/Berlin", "UTC")? */
export const isIanaTimeZone = (name: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)
  } catch {
    return false
  }
}
// `format: 'time-zone'`: an IANA time zone name (checked against the runtime's data, which follows the IANA
// database, never a hand-written list).
dataValidator.addFormat('time-zone', { type: 'string', validate: isIanaTimeZone })
export const queryValidator: Ajv = addFormats(
  new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false }),
  formats
)

// `queryNull` (see QueryNullable in ./common.ts): the value null, or the query string's `null`, which it turns into
// null. It never coerces anything else (Ajv's `type: 'null'` would turn 0, false and '' into null).
queryValidator.addKeyword({
  keyword: 'queryNull',
  schemaType: 'boolean',
  modifying: true,
  errors: false,
  validate: (
    _enabled: boolean,
    data: unknown,
    _schema: unknown,
    context?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number }
  ) => {
    if (data === null) return true
    if (data !== 'null' || !context?.parentData) return false
    context.parentData[context.parentDataProperty] = null
    return true
  }
})

export interface FieldError {
  field: string
  message: string
}

/** The field name of a problem with the whole body (or the whole query), the same in every service. */
export const WHOLE_BODY = '(body)'

// A JSON pointer (`/a/b~1c`) as a dotted field name (`a.b/c`).
const fieldOf = (instancePath: string, property?: string) =>
  [
    ...String(instancePath || '')
      .split('/')
      .filter(Boolean)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')),
    ...(property !== undefined ? [property] : [])
  ].join('.')

/**
 * Turns Ajv errors into `{ field, message }` pairs, one per offending field. `serverOwned` names the top-level
 * fields the server sets, so that sending one says so instead of "is not an allowed field".
 */
export const fieldErrors = (
  errors: readonly ErrorObject[] | null | undefined,
  options: { serverOwned?: readonly string[] } = {}
): FieldError[] => {
  const seen = new Map<string, FieldError>()
  for (const error of errors ?? []) {
    // (the null alternative of a field that may be null: the other alternative's message says what is expected)
    if (error.keyword === 'queryNull') continue
    let field = fieldOf(error.instancePath)
    let message = error.message ?? 'is invalid'
    if (error.keyword === 'additionalProperties') {
      const property = error.params.additionalProperty
      field = fieldOf(error.instancePath, property)
      message =
        !error.instancePath && options.serverOwned?.includes(property)
          ? 'is set by the server and must not be sent'
          : 'is not an allowed field'
    } else if (error.keyword === 'required') {
      field = fieldOf(error.instancePath, error.params.missingProperty)
      message = 'is required'
    } else if (error.keyword === 'enum') {
      message = `must be one of: ${(error.params.allowedValues ?? []).join(', ')}`
    }
    // Unions (anyOf) repeat the same field many times; keep the first, most specific message.
    if (error.keyword === 'anyOf' && seen.has(field)) continue
    if (!seen.has(field)) seen.set(field, { field: field || WHOLE_BODY, message })
  }
  return [...seen.values()]
}

/** The 400 of a body that is no JSON object. */
export const bodyNotAnObject = () =>
  new BadRequest('The body must be a JSON object', {
    errors: [{ field: WHOLE_BODY, message: 'must be a JSON object' }]
  })

/** A BadRequest naming every offending field in its message and in `errors`. */
export const invalid = (what: string, errors: FieldError[]) =>
  new BadRequest(`Invalid ${what}: ${errors.map((e) => `'${e.field}' ${e.message}`).join('; ')}`, { errors })

type ValidateFunction = ReturnType<Ajv['compile']>
/** One error as Ajv reports it. */
type ErrorObject = NonNullable<ValidateFunction['errors']>[number]

// Pure memoization, kept per process: a schema object compiles to the same function in every app (the schemas
// are module constants, never changed after load).
const compileCache = new WeakMap<object, ValidateFunction>()
const compile = (ajv: Ajv, schema: TSchema): ValidateFunction => {
  let validate = compileCache.get(schema)
  if (!validate) {
    validate = ajv.compile(schema)
    compileCache.set(schema, validate)
  }
  return validate
}

/** Validates (and defaults) a value against a schema, throwing a field-naming 400. */
export const check = <T = unknown>(ajv: Ajv, schema: TSchema, value: unknown, what = 'data'): T => {
  const validate = compile(ajv, schema)
  if (!validate(value)) throw invalid(what, fieldErrors(validate.errors))
  return value as T
}

/** Validates `context.data` for create (dataSchema) and patch (patchSchema). */
export const validateBody =
  (schemas: { create?: TSchema; patch?: TSchema; update?: TSchema }) =>
  async (context: HookContext, next: NextFunction) => {
    const schema = schemas[context.method as 'create' | 'patch' | 'update'] // undefined for other methods
    if (schema) {
      if (context.data === null || typeof context.data !== 'object' || Array.isArray(context.data))
        throw bodyNotAnObject()
      context.data = check(dataValidator, schema, context.data, 'data')
    }
    await next()
  }

/** The dotted paths of the null values in a query (`total`, `total.$in.0`, `$or.1.total`). */
const nullPaths = (value: unknown, prefix = '', out: string[] = []): string[] => {
  if (value === null) out.push(prefix)
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) nullPaths(item, prefix ? `${prefix}.${key}` : key, out)
  }
  return out
}
const valueAt = (value: unknown, path: string) =>
  path
    .split('.')
    .reduce<unknown>(
      (item, key) => (item && typeof item === 'object' ? (item as Record<string, unknown>)[key] : undefined),
      value
    )

/**
 * Validates `params.query` (coercing REST strings into numbers and booleans). `null` asks for a null or missing
 * field where the query schema allows it (QueryNullable); elsewhere Ajv would coerce it into 0, '' or false, so it
 * is refused with a 400 naming the field.
 */
export const validateQueryWith = (schema: TSchema) => async (context: HookContext, next: NextFunction) => {
  const given = { ...(context.params.query ?? {}) }
  const nulls = nullPaths(given)
  const query = check(queryValidator, schema, given, 'query')
  // (`$limit`, `$skip`, `$sort`, `$select` are no field conditions: their own messages apply)
  const coerced = nulls.filter(
    (path) => !/^\$(limit|skip|sort|select)(\.|$)/.test(path) && valueAt(query, path) !== null
  )
  if (coerced.length > 0)
    throw invalid(
      'query',
      coerced.map((field) => ({
        field,
        message: 'cannot be null: no document lacks this field or holds null in it'
      }))
    )
  // Coercion turns a REST string such as `1e309` into Infinity, which no store compares meaningfully.
  const nonFinite = context.params.provider ? findNonFinite(query) : null
  if (nonFinite) throw invalid('query', [{ field: nonFinite.field, message: nonFinite.message }])
  context.params = { ...context.params, query }
  await next()
}
