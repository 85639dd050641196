// `$populate` resolves references on find/get. Every populated call runs as the caller through the target
// service's own hooks (so it never shows what a direct call would not); targets must opt in
// (`populatable` on the service); depth and fan-out are bounded by config (`populate`): `maxFanOut` bounds the
// lookups of the whole request, at every depth (one budget, created by the outermost call and handed down).
import { BadRequest } from '@feathersjs/errors'
import { getDispatch, getDispatchValue } from '@feathersjs/schema'
import type { HookContext, NextFunction, PopulateBudget } from '../declarations'
import { serviceAt } from '../store'
import type { Id } from '@feathersjs/feathers'

interface PopulateSpec {
  service: string
  localKey: string
  foreignKey: string
  method: 'get' | 'find' | 'findOne'
  $select?: string[]
  $populate?: unknown
}

const MAX_NAMES = 5

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
    const item = (raw as Record<string, any>)[name]
    if (!/^[A-Za-z0-9_-]+$/.test(name) || !item || typeof item !== 'object')
      throw new BadRequest(`Invalid ${field}`, { errors: [{ field, message: 'must be an object' }] })
    const allowedKeys = ['service', 'localKey', 'foreignKey', 'method', '$select', '$populate']
    const unknown = Object.keys(item).find((key) => !allowedKeys.includes(key))
    if (unknown)
      throw new BadRequest(`Invalid ${field}.${unknown}`, {
        errors: [{ field: `${field}.${unknown}`, message: 'is not allowed' }]
      })
    const service = item.service
    if (
      typeof service !== 'string' ||
      !(context.app.services as unknown as Record<string, unknown>)[service.replace(/^\/+|\/+$/g, '')]
    ) {
      throw new BadRequest(`${field}.service must name a service`, {
        errors: [{ field: `${field}.service`, message: 'must name a service' }]
      })
    }
    const target = serviceAt(context.app, service.replace(/^\/+|\/+$/g, ''))
    if (target.populatable !== true)
      throw new BadRequest(`Service '${service}' cannot be populated`, {
        errors: [{ field: `${field}.service`, message: 'cannot be populated' }]
      })
    for (const key of ['localKey', 'foreignKey'] as const) {
      if (item[key] !== undefined && (typeof item[key] !== 'string' || !/^[A-Za-z0-9_.]+$/.test(item[key]))) {
        throw new BadRequest(`${field}.${key} must be a field name`, {
          errors: [{ field: `${field}.${key}`, message: 'must be a field name' }]
        })
      }
    }
    const foreignKey = item.foreignKey ?? 'id'
    const method = item.method ?? (foreignKey === 'id' ? 'get' : 'find')
    if (!['get', 'find', 'findOne'].includes(method))
      throw new BadRequest(`${field}.method must be get, find or findOne`, {
        errors: [{ field: `${field}.method`, message: 'must be one of: get, find, findOne' }]
      })
    if (method === 'get' && foreignKey !== 'id')
      throw new BadRequest(`${field}.method get needs foreignKey id`, {
        errors: [{ field: `${field}.foreignKey`, message: 'must be id when method is get' }]
      })
    const $select = item.$select === undefined ? undefined : [].concat(item.$select)
    if ($select && $select.some((s: unknown) => typeof s !== 'string'))
      throw new BadRequest(`${field}.$select must list field names`, {
        errors: [{ field: `${field}.$select`, message: 'must list field names' }]
      })
    specs[name] = {
      service: service.replace(/^\/+|\/+$/g, ''),
      localKey: item.localKey ?? name,
      foreignKey,
      method,
      $select,
      $populate: item.$populate
    }
  }
  return specs
}

const getPath = (doc: any, path: string) =>
  path.split('.').reduce((value, key) => (value == null ? undefined : value[key]), doc)

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

  const result: any = context.result
  const docs: any[] = Array.isArray(result)
    ? result
    : Array.isArray(result?.data)
      ? result.data
      : result
        ? [result]
        : []
  const callParams = {
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
    const key = JSON.stringify([spec, value])
    if (!calls.has(key)) {
      if (budget.used >= maxFanOut)
        throw new BadRequest(
          `$populate would make more than ${maxFanOut} lookups in this request; lower $limit or nest less`
        )
      budget.used++
      const target = serviceAt(context.app, spec.service)
      const extra = {
        ...(spec.$select ? { $select: spec.$select } : {}),
        ...(spec.$populate ? { $populate: spec.$populate } : {})
      }
      let call: Promise<unknown>
      if (spec.method === 'get' && !Array.isArray(value)) {
        call = target.get(value as Id, { ...callParams, query: extra }).catch((error: any) => {
          if ([403, 404].includes(error?.code)) return null
          throw error
        })
      } else {
        const limit = spec.method === 'findOne' ? 1 : maxFanOut
        const match = Array.isArray(value) ? { $in: value } : value
        call = target
          .find({ ...callParams, query: { [spec.foreignKey]: match, $limit: limit, ...extra } })
          .then((found: any) => {
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
      doc.$populated = { ...(doc.$populated ?? {}), ...populated }
      // A document presented by an external resolver goes out as its dispatch (src/schema/external.ts).
      const shown = getDispatch(doc)
      if (shown) shown.$populated = { ...(shown.$populated ?? {}), ...populated }
    })
  )
}
