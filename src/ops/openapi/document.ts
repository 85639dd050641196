// The OpenAPI 3.1 document of the running app, built from its registered services (every path in
// `app.services`, so services added later appear without a change here) and their TypeBox schemas
// (service-docs.ts): results, create/update/patch bodies with their body operators, queries, and the
// authentication logins and actions as request shapes. Built on first request and rebuilt when the set of
// registered services changed.
import { getServiceOptions } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { serviceDocs, type ServiceDoc } from './service-docs'
import { appSlot } from '../../runtime'
import { plainRoutePaths } from './plain-routes'
import { fhirPaths, fhirSchemas, fhirTag } from './fhir-paths'

type Json = Record<string, unknown>

const version = (): string => {
  try {
    return require('../../../package.json').version
  } catch {
    return '0.0.0'
  }
}

// TypeBox schemas are JSON Schema with symbol keys; JSON gives the plain schema.
const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema ?? {}))

const componentName = (path: string) =>
  path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('')

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

const errorResponses = (codes: number[]): Json =>
  Object.fromEntries(codes.map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }]))

const errorMeaning: Record<number, string> = {
  400: 'Bad request: `errors` names each offending field',
  401: 'Not authenticated (no, expired or ended token)',
  403: 'Forbidden: readable, but not changeable by the caller',
  404: 'Not found, or not readable by the caller',
  409: 'Conflict with the current state (e.g. finalized, duplicate)',
  501: 'Not configured on this server (e.g. an OAuth provider without a client id)'
}

const isSchemaMap = (value: unknown): value is Record<string, unknown> =>
  !!value &&
  typeof value === 'object' &&
  !('type' in (value as Json)) &&
  !('anyOf' in (value as Json)) &&
  !('allOf' in (value as Json)) &&
  !('oneOf' in (value as Json)) &&
  !('$ref' in (value as Json))

// (cast: the registered services by path; `docs` is an optional service option of this app's own)
const registered = (app: Application) => app.services as unknown as Record<string, { docs?: ServiceDoc }>

const docOf = (app: Application, path: string): ServiceDoc =>
  serviceDocs[path] ?? registered(app)[path]?.docs ?? {}

export const buildOpenApi = (app: Application): Json => {
  const schemas: Json = {
    Error: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        message: { type: 'string' },
        code: { type: 'integer' },
        className: { type: 'string' },
        data: {},
        errors: {
          type: 'array',
          items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } }
        }
      },
      required: ['name', 'message', 'code']
    },
    AnyDocument: {
      type: 'object',
      description: 'A document of this service (no schema published for it yet)',
      properties: { id: { type: 'string' } }
    }
  }
  const paths: Json = {}
  const tags: Json[] = []

  for (const path of Object.keys(app.services).sort()) {
    const service = registered(app)[path]
    const methods: readonly string[] = getServiceOptions(service)?.methods ?? []
    const doc = docOf(app, path)
    const name = componentName(path)
    tags.push({ name: path, description: doc.summary ?? `The ${path} service` })

    const resultName = doc.result ? name : 'AnyDocument'
    if (doc.result) schemas[name] = plain(doc.result)
    const body = (kind: 'Data' | 'Update' | 'Patch', given: ServiceDoc['data']): Json => {
      if (!given) return { type: 'object' }
      if (!isSchemaMap(given)) {
        schemas[`${name}${kind}`] = plain(given)
        return ref(`${name}${kind}`)
      }
      const alternatives = Object.entries(given).map(([label, schema]) => {
        const key = `${name}${kind}${componentName(label)}`
        const json = plain(schema)
        schemas[key] = { ...json, title: json.title ?? label }
        return ref(key)
      })
      return alternatives.length === 1 ? alternatives[0] : { anyOf: alternatives }
    }
    const requestBody = (schema: Json) => ({ required: true, content: { 'application/json': { schema } } })
    const answer = (description: string, schema: Json) => ({
      description,
      content: { 'application/json': { schema } }
    })
    // A find that also answers CSV (`Accept: text/csv`) says so next to its JSON.
    const withCsv = (response: Json): Json =>
      doc.findCsv
        ? {
            ...response,
            content: {
              ...(response.content as Json),
              'text/csv': { schema: { type: 'string', description: doc.findCsv } }
            }
          }
        : response
    const idParameter = {
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'string' },
      description: `The ${path} document id`
    }
    const queryParameter = doc.query
      ? (() => {
          schemas[`${name}Query`] = plain(doc.query)
          return [
            {
              name: 'query',
              in: 'query',
              required: false,
              style: 'deepObject',
              explode: true,
              schema: ref(`${name}Query`),
              description: 'Filters, $limit, $skip, $sort, $select and the operators this service accepts'
            }
          ]
        })()
      : []
    const operation = (method: string, extra: Json): Json => ({
      tags: [path],
      operationId: `${name}.${method}`,
      ...extra
    })

    const collection: Json = {}
    const item: Json = {}
    if (doc.singleton) {
      schemas[`${name}Moved`] = plain(doc.singleton.patchResult)
      paths[`/${path}`] = {
        ...(methods.includes('find')
          ? {
              get: operation('find', {
                summary: `Read ${path}`,
                responses: { 200: answer('The current state', ref(resultName)), ...errorResponses([401]) }
              })
            }
          : {}),
        ...(methods.includes('patch')
          ? {
              patch: operation('patch', {
                summary: `Change ${path}`,
                requestBody: requestBody(body('Patch', doc.patch)),
                responses: {
                  200: answer('The new state', ref(`${name}Moved`)),
                  ...errorResponses([400, 401, 403])
                }
              })
            }
          : {})
      }
      continue
    }
    if (methods.includes('find')) {
      collection.get = operation('find', {
        summary: `List ${path}`,
        parameters: queryParameter,
        responses: {
          200: withCsv(
            answer('One page of results', {
              type: 'object',
              properties: {
                total: { type: 'integer' },
                limit: { type: 'integer' },
                skip: { type: 'integer' },
                data: { type: 'array', items: ref(resultName) }
              },
              required: ['total', 'limit', 'skip', 'data']
            })
          ),
          ...errorResponses([400, 401])
        }
      })
    }
    if (methods.includes('create')) {
      const status = String(doc.createStatus ?? 201)
      collection.post = operation('create', {
        summary: path === 'authentication' ? 'Log in, or run an account action' : `Create in ${path}`,
        requestBody: requestBody(body('Data', doc.data)),
        responses: {
          [status]: answer('Created', ref(resultName)),
          ...errorResponses([400, 401, 403, 409, ...(path === 'authentication' ? [501] : [])])
        }
      })
    }
    if (methods.includes('get')) {
      const getQuery = doc.getQuery
        ? (() => {
            schemas[`${name}GetQuery`] = plain(doc.getQuery)
            return [
              {
                name: 'query',
                in: 'query',
                required: false,
                style: 'deepObject',
                explode: true,
                schema: ref(`${name}GetQuery`),
                description: 'What this read adds to the document'
              }
            ]
          })()
        : []
      item.get = operation('get', {
        summary: `Read one of ${path}`,
        parameters: [idParameter, ...getQuery],
        responses: { 200: answer('The document', ref(resultName)), ...errorResponses([401, 404]) }
      })
    }
    if (methods.includes('update')) {
      item.put = operation('update', {
        summary: `Replace one of ${path}`,
        parameters: [idParameter],
        requestBody: requestBody(body('Update', doc.update)),
        responses: {
          200: answer('The replaced document', ref(resultName)),
          ...errorResponses([400, 401, 403, 404, 409])
        }
      })
    }
    if (methods.includes('patch')) {
      item.patch = operation('patch', {
        summary: `Change one of ${path} (fields or body operators)`,
        parameters: [idParameter],
        requestBody: requestBody(body('Patch', doc.patch)),
        responses: {
          200: answer('The changed document', ref(resultName)),
          ...errorResponses([400, 401, 403, 404, 409])
        }
      })
    }
    if (methods.includes('remove')) {
      item.delete = operation('remove', {
        summary:
          path === 'authentication'
            ? "Log out (Feathers' logout): the id is the access token the call sends as its Bearer token; the logout-everywhere action ends every session"
            : `Remove one of ${path}`,
        parameters: [idParameter],
        responses: {
          200: answer('The removed document', ref(resultName)),
          ...errorResponses([401, 403, 404, 409])
        }
      })
    }
    if (Object.keys(collection).length) paths[`/${path}`] = collection
    if (Object.keys(item).length) paths[`/${path}/{id}`] = item
  }
  // Plain HTTP routes beside the services (attachment bytes).
  Object.assign(paths, plainRoutePaths('Attachments' in schemas ? 'Attachments' : 'AnyDocument'))
  // The /fhir routes are plain HTTP (not services): their entries are stated in fhir-paths.ts.
  Object.assign(paths, fhirPaths)
  Object.assign(schemas, fhirSchemas)
  tags.push(fhirTag)

  return {
    openapi: '3.1.0',
    info: {
      title: 'Clinic back end',
      version: version(),
      description:
        'Healthcare practice-management API (interface version 5.45.0). Every path is a Feathers service, reachable over REST and Socket.IO under the same rules. ' +
        'Authenticate with `POST /authentication` and send `Authorization: Bearer <accessToken>`. Lists are `{ total, limit, skip, data }`.'
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, {}],
    tags,
    paths,
    components: {
      schemas,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      responses: Object.fromEntries(
        Object.entries(errorMeaning).map(([code, description]) => [
          `Error${code}`,
          { description, content: { 'application/json': { schema: ref('Error') } } }
        ])
      )
    }
  }
}

const documentSlot = appSlot<{ key: string; doc: Json }>('OpenAPI document')

/** The app's document, rebuilt when services were registered since the last build. */
export const openApiOf = (app: Application): Json => {
  const key = Object.keys(app.services).join(',')
  const cached = documentSlot.get(app)
  if (cached && cached.key === key) return cached.doc
  const doc = buildOpenApi(app)
  documentSlot.set(app, { key, doc })
  return doc
}
