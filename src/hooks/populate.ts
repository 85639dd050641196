// `$populate` resolves references on find/get. Every populated call runs as the caller through the target
// service's own hooks (so it never shows what a direct call would not); targets must opt in
// (`populatable` on the service); depth and fan-out are bounded by config (`populate`): `maxFanOut` bounds the
// lookups of the whole request, at every depth (one budget, created by the outermost call and handed down).
import { BadRequest } from '@feathersjs/errors'
import { getDispatch, getDispatchValue } from '@feathersjs/schema'
import type { Application, HookContext, NextFunction, PopulateBudget } from '../declarations'
import type { Id, Params, Paginated } from '@feathersjs/feathers'

/** A service `$populate` may read from, as the app registered it (called with its hooks, as the caller). */
interface PopulateTarget {
  populatable?: boolean
  get(id: Id, params: Params): Promise<unknown>
  find(params: Params): Promise<unknown[] | Paginated<unknown>>
}

/** The app's service registered at `path` (with its hooks), or undefined. */
const registeredAt = (app: Application, path: string): PopulateTarget | undefined => {
  // (cast: the path is the client's, known only at run time)
  const services = app.services as unknown as Record<string, PopulateTarget | undefined>
  return Object.hasOwn(services, path) ? services[path] : undefined
}

interface PopulateSpec {
  service: string
  target: PopulateTarget
  localKey: string
  foreignKey: string
  method: 'get' | 'find' | 'findOne'
  $select?: string[]
  $populate?: unknown
}

const MAX_NAMES = 5
const methods = ['get', 'find', 'findOne'] as const
const isMethod = (value: unknown): value is PopulateSpec['method'] =>
  (methods as readonly unknown[]).includes(value)
const trimSlashes = (path: string) => path.replace(/^\/+|\/+$/g, '')

const parseSpecs = (context: HookContext, raw: unknown): Record<string, PopulateSpec> => {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new BadRequest('$populate must be an object of named populates', {
      errors: [{ field: '$populate', message: 'must be an object' }]
    })
  const names = Object.keys(raw)
  if (names.length > MAX_NAMES) throw new BadRequest(`$populate accepts at most ${MAX_NAMES} names`)
  const specs: Record<string, PopulateSpec> = {}
  for (const name of names) {
    const field = `$populate.${name}`
    const item: unknown = (raw as Record<string, unknown>)[name]
    if (!/^[A-Za-z0-9_-]+$/.test(name) || !item || typeof item !== 'object' || Array.isArray(item))
      throw new BadRequest(`Invalid ${field}`, { errors: [{ field, message: 'must be an object' }] })
    const allowedKeys = ['service', 'localKey', 'foreignKey', 'method', '$select', '$populate']
    const unknown = Object.keys(item).find((key) => !allowedKeys.includes(key))
    if (unknown)
      throw new BadRequest(`Invalid ${field}.${unknown}`, {
        errors: [{ field: `${field}.${unknown}`, message: 'is not allowed' }]
      })
    const given = item as Record<string, unknown>
    const service = given.service
    const path = typeof service === 'string' ? trimSlashes(service) : ''
    const target = path ? registeredAt(context.app, path) : undefined
    if (!target) {
      throw new BadRequest(`${field}.service must name a service`, {
        errors: [{ field: `${field}.service`, message: 'must name a service' }]
      })
    }
    if (target.populatable !== true)
      throw new BadRequest(`Service '${String(service)}' cannot be populated`, {
        errors: [{ field: `${field}.service`, message: 'cannot be populated' }]
      })
    const fieldName = (key: 'localKey' | 'foreignKey'): string | undefined => {
      const value = given[key]
      if (value === undefined) return undefined
      if (typeof value !== 'string' || !/^[A-Za-z0-9_.]+$/.test(value))
        throw new BadRequest(`${field}.${key} must be a field name`, {
          errors: [{ field: `${field}.${key}`, message: 'must be a field name' }]
        })
      return value
    }
    const localKey = fieldName('localKey')
    const foreignKey = fieldName('foreignKey') ?? 'id'
    const method = given.method ?? (foreignKey === 'id' ? 'get' : 'find')
    if (!isMethod(method))
      throw new BadRequest(`${field}.method must be get, find or findOne`, {
        errors: [{ field: `${field}.method`, message: 'must be one of: get, find, findOne' }]
      })
    if (method === 'get' && foreignKey !== 'id')
      throw new BadRequest(`${field}.method get needs foreignKey id`, {
        errors: [{ field: `${field}.foreignKey`, message: 'must be id when method is get' }]
      })
    const $select = given.$select === undefined ? undefined : ([] as unknown[]).concat(given.$select)
    if ($select && !$select.every((s): s is string => typeof s === 'string'))
      throw new BadRequest(`${field}.$select must list field names`, {
        errors: [{ field: `${field}.$select`, message: 'must list field names' }]
      })
    specs[name] = {
      service: path,
      target,
      localKey: localKey ?? name,
      foreignKey,
      method,
      $select,
      $populate: given.$populate
    }
  }
  return specs
}

const getPath = (doc: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (value, key) => (value == null ? undefined : (value as Record<string, unknown>)[key]),
      doc
    )

export const populate = async (context: HookContext, next: NextFunction) => {
  const raw = context.params.query?.$populate
  if (raw === undefined) return next()
  if (context.method !== 'find' && context.method !== 'get')
    throw new BadRequest('$populate is only available on find and get')
  const { $populate: _drop, ...query } = context.params.query
  context.params = { ...context.params, query }
  const specs = parseSpecs(context, raw)
  const depth = context.params.populateDepth ?? 0
  const { maxDepth, maxFanOut } = context.app.get('populate')
  if (depth >= maxDepth) throw new BadRequest(`$populate may be nested at most ${maxDepth} levels deep`)
  // Only nested populate calls (made below, never by a transport) carry a budget in; the outermost starts one.
  const budget: PopulateBudget =
    depth > 0 && context.params.populateBudget ? context.params.populateBudget : { used: 0 }

  await next()

  // The documents of the answer (a page, a list or one document), populated in place.
  const result: unknown = context.result
  const page = result as { data?: unknown } | undefined
  const docs = (
    Array.isArray(result) ? result : Array.isArray(page?.data) ? page.data : result ? [result] : []
  ) as Record<string, unknown>[]
  const callParams: Params = {
    provider: context.params.provider,
    account: context.params.account,
    authentication: context.params.authentication,
    authenticated: context.params.authenticated,
    access: context.params.access,
    populateDepth: depth + 1,
    populateBudget: budget,
    headers: context.params.headers,
    connection: context.params.connection,
    // The audit trail records populated reads as part of this request (its id, the caller's address and agent).
    requestId: context.params.requestId,
    ip: context.params.ip,
    userAgent: context.params.userAgent
  }
  const calls = new Map<string, Promise<unknown>>()
  const resolveOne = (spec: PopulateSpec, value: unknown) => {
    const { target, ...asked } = spec
    const key = JSON.stringify([asked, value])
    if (!calls.has(key)) {
      if (budget.used >= maxFanOut)
        throw new BadRequest(
          `$populate would make more than ${maxFanOut} lookups in this request; lower $limit or nest less`
        )
      budget.used++
      const extra = {
        ...(spec.$select ? { $select: spec.$select } : {}),
        ...(spec.$populate ? { $populate: spec.$populate } : {})
      }
      let call: Promise<unknown>
      if (spec.method === 'get' && !Array.isArray(value)) {
        call = target.get(value as Id, { ...callParams, query: extra }).catch((error: unknown) => {
          const code = (error as { code?: unknown } | null)?.code
          if (code === 403 || code === 404) return null
          throw error
        })
      } else {
        const limit = spec.method === 'findOne' ? 1 : maxFanOut
        const match = Array.isArray(value) ? { $in: value } : value
        call = target
          .find({ ...callParams, query: { [spec.foreignKey]: match, $limit: limit, ...extra } })
          .then((found) => {
            const list = Array.isArray(found) ? found : found.data
            return spec.method === 'findOne' ? (list[0] ?? null) : list
          })
      }
      calls.set(key, call)
    }
    return calls.get(key)
  }

  await Promise.all(
    docs.map(async (doc) => {
      const populated: Record<string, unknown> = {}
      for (const [name, spec] of Object.entries(specs)) {
        const value = getPath(doc, spec.localKey)
        if (value === undefined || value === null) {
          populated[name] = spec.method === 'find' ? [] : null
          continue
        }
        // What the caller may see of the populated documents: their service's external view.
        populated[name] = getDispatchValue(await resolveOne(spec, value))
      }
      doc.$populated = { ...(doc.$populated as object | undefined), ...populated }
      // A document presented by an external resolver goes out as its dispatch (src/schema/external.ts).
      const shown: Record<string, unknown> | undefined = getDispatch(doc)
      if (shown) shown.$populated = { ...(shown.$populated as object | undefined), ...populated }
    })
  )
}
