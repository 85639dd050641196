// The /fhir routes (plain HTTP, `application/fhir+json`), registered by src/app.ts before the JSON body parser:
//   GET    /fhir/metadata                          CapabilityStatement (anonymous)
//   GET    /fhir/Patient/:id/$everything           searchset Bundle, paged (`_count`, `next` link)
//   GET    /fhir/Group/:facility/$export           bulk export kick-off (POST too): 202 + Content-Location
//   GET    /fhir/$export-status/:job               202 + X-Progress while running, then 200 + manifest
//   DELETE /fhir/$export-status/:job               cancels (202) and removes the files
//   GET    /fhir/$export-files/:job/:file          one NDJSON file of a complete export
//   POST   /fhir?facility=:id                      imports a transaction/collection Bundle, all or nothing
//   GET    /fhir/Binary/:id                        the bytes of an attachment file (a DocumentReference's
//                                                  content URL), as the attachment's own download answers them
// Every route but metadata needs the bearer token of a REST call. Every failure is an OperationOutcome with its
// status (a client's mistake a 4xx naming the element; nothing else reveals more than a 404 would).
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application } from '../../declarations'
import { depsSlot } from '../../deps'
import { logger } from '../../logger'
import { capabilityStatement } from '../../fhir/capability'
import { supportedTypes } from '../../fhir/mapping'
import { FhirError, notFound, outcomeOf } from '../../fhir/outcome'
import { authenticateCaller } from './caller'
import { everything, parseCount } from './everything'
import { cancel, exportFile, kickOff, statusOf, visibleJob } from './bulk'
import { importBundle, readJsonBody } from './import'
import { fhirSlot } from './fhir'
import { sendAttachmentBytes } from '../attachments/content-routes'

export const FHIR_JSON = 'application/fhir+json; charset=utf-8'
const NDJSON = 'application/fhir+ndjson'

// Types an import reads without creating anything (the facility is the import's target; staff are not imported).
const DESCRIPTIVE = ['Organization', 'Practitioner', 'PractitionerRole']
const importTypes = supportedTypes.filter((type) => !DESCRIPTIVE.includes(type))

const segment = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    throw notFound('Not a FHIR path of this server')
  }
}

// The server's version, as package.json states it (read once per process: it does not change while running).
const packageVersion = (): string => {
  try {
    return (require('../../../package.json') as { version: string }).version
  } catch {
    return '0.0.0'
  }
}

const queryOf = (ctx: FeathersKoaContext) => ctx.query as Record<string, unknown>

const methodNotAllowed = (allowed: string) => FhirError.of(405, 'not-supported', `Allowed here: ${allowed}`)

export const fhirRoutes =
  (app: Application) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    if (ctx.path !== '/fhir' && !ctx.path.startsWith('/fhir/')) return next()
    ctx.set('Cache-Control', 'no-store')
    try {
      await route(app, ctx)
    } catch (error) {
      const { status, outcome, unexpected } = outcomeOf(error)
      if (unexpected) logger.error(`FHIR ${ctx.method} ${ctx.path} failed:`, error)
      ctx.status = status
      if (status === 401) ctx.set('WWW-Authenticate', 'Bearer')
      ctx.type = FHIR_JSON
      ctx.body = outcome
    }
  }

const json = (ctx: FeathersKoaContext, status: number, body: unknown) => {
  ctx.status = status
  ctx.type = FHIR_JSON
  ctx.body = body
}

const route = async (app: Application, ctx: FeathersKoaContext) => {
  const deps = depsSlot.require(app)
  const state = fhirSlot.require(app)
  const parts = ctx.path.split('/').slice(2).map(segment) // after '', 'fhir'
  const base = `${ctx.protocol}://${ctx.host}`
  const method = ctx.method

  if (parts.length === 1 && parts[0] === 'metadata') {
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed('GET')
    return json(
      ctx,
      200,
      capabilityStatement({
        base,
        supportedTypes,
        importTypes,
        date: new Date(deps.clock.now()).toISOString(),
        software: { name: 'clinic-backend', version: packageVersion() }
      })
    )
  }

  if (parts.length === 0 || (parts.length === 1 && parts[0] === '')) {
    if (method !== 'POST') throw methodNotAllowed('POST (a transaction or collection Bundle)')
    const caller = await authenticateCaller(app, ctx)
    const body = await readJsonBody(ctx, app.get('bodyLimit'))
    return json(ctx, 200, await importBundle(app, deps, state, caller, queryOf(ctx), body))
  }

  if (parts.length === 3 && parts[0] === 'Patient' && parts[2] === '$everything') {
    if (method !== 'GET') throw methodNotAllowed('GET')
    const query = queryOf(ctx)
    for (const name of Object.keys(query))
      if (!['_count', '_cursor'].includes(name))
        throw FhirError.of(400, 'not-supported', `The parameter ${name} is not supported`, name)
    const count = parseCount(query._count)
    if (query._cursor !== undefined && typeof query._cursor !== 'string')
      throw FhirError.of(400, 'invalid', '_cursor must be given once', '_cursor')
    const caller = await authenticateCaller(app, ctx)
    return json(
      ctx,
      200,
      await everything(
        app,
        deps,
        caller,
        {
          patient: parts[1],
          count,
          cursor: query._cursor as string | undefined,
          self: `${base}/fhir/Patient/${encodeURIComponent(parts[1])}/$everything`,
          base
        },
        deps.settings.get('fhir').systemBase
      )
    )
  }

  if (parts.length === 3 && parts[0] === 'Group' && parts[2] === '$export') {
    if (method !== 'GET' && method !== 'POST') throw methodNotAllowed('GET, POST')
    const caller = await authenticateCaller(app, ctx)
    const feathers = (ctx.feathers ?? {}) as { ip?: string; userAgent?: string }
    const job = await kickOff(deps, state.exports, caller, {
      facility: parts[1],
      query: queryOf(ctx),
      prefer: ctx.get('prefer'),
      request: `${base}${ctx.url}`,
      base,
      supportedTypes,
      ip: feathers.ip,
      userAgent: feathers.userAgent
    })
    state.worker.nudge()
    ctx.set('Content-Location', `${base}/fhir/$export-status/${job.id}`)
    return json(ctx, 202, {
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'information', code: 'informational', diagnostics: `Export ${job.id} accepted` }]
    })
  }

  if (parts.length === 2 && parts[0] === '$export-status') {
    if (method !== 'GET' && method !== 'DELETE') throw methodNotAllowed('GET, DELETE')
    const caller = await authenticateCaller(app, ctx)
    const job = await visibleJob(deps, state.exports, caller, parts[1])
    if (method === 'DELETE') {
      await cancel(deps, state.exports, state.root, job)
      return json(ctx, 202, {
        resourceType: 'OperationOutcome',
        issue: [{ severity: 'information', code: 'informational', diagnostics: `Export ${job.id} cancelled` }]
      })
    }
    const answer = statusOf(job)
    if (answer.status === 202) {
      ctx.set('X-Progress', answer.progress ?? 'running')
      ctx.set('Retry-After', '1')
      return json(ctx, 202, {
        resourceType: 'OperationOutcome',
        issue: [{ severity: 'information', code: 'informational', diagnostics: answer.progress ?? 'running' }]
      })
    }
    if (job.expiresAt !== undefined) ctx.set('Expires', new Date(job.expiresAt).toUTCString())
    ctx.status = 200
    ctx.type = 'application/json; charset=utf-8'
    ctx.body = answer.body
    return
  }

  if (parts.length === 2 && parts[0] === 'Binary') {
    if (method !== 'GET') throw methodNotAllowed('GET')
    const caller = await authenticateCaller(app, ctx)
    return sendAttachmentBytes(app, deps, ctx, caller.account.id, parts[1])
  }

  if (parts.length === 3 && parts[0] === '$export-files') {
    if (method !== 'GET') throw methodNotAllowed('GET')
    const caller = await authenticateCaller(app, ctx)
    const job = await visibleJob(deps, state.exports, caller, parts[1])
    const stream = exportFile(state.root, job, parts[2])
    ctx.status = 200
    ctx.type = NDJSON
    ctx.body = stream
    return
  }

  throw notFound(`${ctx.method} ${ctx.path} is not a FHIR interaction of this server (see /fhir/metadata)`)
}
