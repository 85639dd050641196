// GET /openapi.json is a valid OpenAPI 3.1 document listing every registered service (also one registered after
// start-up) with its methods, body shapes and operators; GET /docs is the interactive reference, served from this
// process (no CDN).
import assert from 'node:assert/strict'
import { getServiceOptions } from '@feathersjs/feathers'
import { http, startServer, type TestServer } from '../helpers/app'

// The validator is an ES module; TypeScript's CommonJS output would turn import() into require().
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<any>

describe('OpenAPI document and /docs', () => {
  let server: TestServer
  let doc: any
  before(async () => {
    server = await startServer()
    const res = await http(server.url, 'GET', '/openapi.json')
    assert.equal(res.status, 200)
    doc = res.body
  })
  after(async () => {
    await server.close()
  })

  it('is a valid OpenAPI 3.1 document (checked by @seriousme/openapi-schema-validator)', async () => {
    const { Validator } = await importEsm('@seriousme/openapi-schema-validator')
    const result = await new Validator().validate(doc)
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1))
    assert.equal(doc.openapi, '3.1.0')
  })

  it('lists every registered service path with an operation per method', () => {
    const verbs: Record<string, [string, string]> = {
      find: ['', 'get'],
      create: ['', 'post'],
      get: ['/{id}', 'get'],
      update: ['/{id}', 'put'],
      patch: ['/{id}', 'patch'],
      remove: ['/{id}', 'delete']
    }
    const services = Object.keys(server.app.services)
    assert.ok(services.length >= 14)
    for (const path of services) {
      // (cast: app.services is keyed by the typed ServiceTypes, the paths here are plain strings)
      for (const method of getServiceOptions((server.app.services as any)[path])?.methods ?? []) {
        const verb = verbs[method]
        if (!verb) continue
        assert.ok(
          doc.paths[`/${path}${verb[0]}`]?.[verb[1]],
          `${verb[1].toUpperCase()} /${path}${verb[0]} (${method}) is missing`
        )
      }
      assert.ok(
        doc.tags.some((tag: any) => tag.name === path),
        `tag ${path}`
      )
    }
  })

  it('documents body operators and the authentication logins and actions as request shapes', () => {
    const schemas = doc.components.schemas
    const alternatives = (operation: any) =>
      operation.requestBody.content['application/json'].schema.anyOf.map(
        (one: any) => schemas[one.$ref.split('/').pop()]
      )
    const encounterPatch = alternatives(doc.paths['/medical-encounters/{id}'].patch)
    assert.ok(
      encounterPatch.some(
        (schema: any) => schema.properties?.finalize?.const === true && schema.required?.includes('finalize')
      )
    )
    const auth = alternatives(doc.paths['/authentication'].post)
    const titles = auth.map((schema: any) => schema.title)
    for (const title of [
      'Password login',
      'OAuth login (registers on first login)',
      'action connectOAuthAccount',
      'action applyActionCode',
      'action changePassword',
      'action changeIdentity',
      'action setupMFA'
    ]) {
      assert.ok(titles.includes(title), title)
    }
    const password = auth.find((schema: any) => schema.title === 'Password login')
    assert.deepEqual(password.required.sort(), ['email', 'password'])
    assert.ok(
      doc.paths['/webhook-events'].post.requestBody.content['application/json'].schema.anyOf.length === 2
    )
    assert.ok(doc.paths['/medical-records'].post.responses['200'], 'medical record creation answers 200')
    assert.ok(
      schemas.Accounts.properties.email && !schemas.Accounts.properties.password,
      'account result without secrets'
    )
  })

  it('publishes the result schema, query and body shapes of every service registered at start-up (none left generic)', () => {
    const methodsOf = (path: string) => getServiceOptions((server.app.services as any)[path])?.methods ?? [] // (cast: paths as plain strings)
    for (const path of Object.keys(server.app.services)) {
      const methods = methodsOf(path)
      const reads = [doc.paths[`/${path}`]?.get, doc.paths[`/${path}/{id}`]?.get].filter(Boolean)
      for (const operation of reads) {
        const answer = JSON.stringify(operation.responses['200'])
        assert.doesNotMatch(answer, /AnyDocument/, `${operation.operationId} answers a generic document`)
      }
      if (methods.includes('find'))
        assert.ok(
          doc.paths[`/${path}`].get.parameters.some(
            (parameter: any) => parameter.name === 'query' && parameter.schema.$ref
          ),
          `${path}: find has no query schema`
        )
      for (const [template, verb] of [
        [`/${path}`, 'post'],
        [`/${path}/{id}`, 'put'],
        [`/${path}/{id}`, 'patch']
      ]) {
        const body = doc.paths[template]?.[verb]?.requestBody?.content['application/json'].schema
        if (body)
          assert.ok(
            body.$ref || body.anyOf,
            `${verb.toUpperCase()} ${template}: generic body ${JSON.stringify(body)}`
          )
      }
    }
  })

  it('documents the order, stock and customer body operators and the $populate query flags', () => {
    const schemas = doc.components.schemas
    const alternatives = (operation: any) =>
      operation.requestBody.content['application/json'].schema.anyOf.map(
        (one: any) => schemas[one.$ref.split('/').pop()]
      )
    const orderPatch = alternatives(doc.paths['/request/orders/{id}'].patch)
    assert.ok(
      orderPatch.some(
        (schema: any) => schema.required?.includes('changeStatus') && schema.properties.stockroom
      ),
      'changeStatus'
    )
    assert.ok(
      orderPatch.some((schema: any) => schema.required?.includes('confirmItem')),
      'confirmItem'
    )
    const stockPatch = alternatives(doc.paths['/inventory-stocks/{id}'].patch)
    assert.ok(
      stockPatch.some((schema: any) => schema.properties.$inc?.properties?.quantity),
      '$inc'
    )
    const customerPatch = alternatives(doc.paths['/billing/customers/{id}'].patch)
    for (const operator of ['$deleteProcessorCard', '$setDefaultProcessorCard'])
      assert.ok(
        customerPatch.some((schema: any) => schema.required?.includes(operator)),
        operator
      )
    const queryOf = (operation: any) =>
      schemas[
        operation.parameters
          .find((parameter: any) => parameter.name === 'query')
          .schema.$ref.split('/')
          .pop()
      ]
    assert.ok(
      JSON.stringify(queryOf(doc.paths['/billing/customers/{id}'].get)).includes('$populateProcessorCards')
    )
    assert.ok(JSON.stringify(queryOf(doc.paths['/inventory-variants'].get)).includes('$populateStocks'))
    assert.ok(JSON.stringify(queryOf(doc.paths['/inventory-variants/{id}'].get)).includes('$populateStocks'))
    assert.ok(schemas.InventoryVariants.properties.$stocks, 'variants read with $stocks')
  })

  it('includes a service registered after start-up', async () => {
    // (casts: a throw-away service outside the typed ServiceTypes)
    server.app.use(
      'late-arrivals' as any,
      {
        async find() {
          return []
        },
        async get(id: string) {
          return { id }
        }
      } as any
    )
    const later = (await http(server.url, 'GET', '/openapi.json')).body
    assert.ok(later.paths['/late-arrivals'].get)
    assert.ok(later.paths['/late-arrivals/{id}'].get)
  })

  it('serves the Swagger UI page and its assets from this server, without external URLs', async () => {
    const page = await http(server.url, 'GET', '/docs')
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-type') ?? '', /text\/html/)
    assert.doesNotMatch(page.body, /https?:\/\//)
    for (const [asset, type] of [
      ['docs/swagger-ui-bundle.js', /javascript/],
      ['docs/swagger-ui.css', /css/],
      ['docs/init.js', /javascript/]
    ] as const) {
      const res = await fetch(`${server.url}/${asset}`)
      assert.equal(res.status, 200, asset)
      assert.match(res.headers.get('content-type') ?? '', type)
      await res.arrayBuffer()
    }
    assert.equal((await http(server.url, 'GET', '/docs/package.json')).status, 404)
  })
})
