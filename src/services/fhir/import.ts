// POST /fhir?facility=<id> — imports a `transaction` or `collection` Bundle into one facility, all or nothing:
// 1. the caller must be a superadmin of the facility (without `facility`: the one facility they administer, else a
//    400 naming `facility`; a facility they are not a member of is a 404, another member gets a 403);
// 2. the Bundle is checked and planned by the mapping (`fromFhir`): an unsupported resource is a 400, an invalid
//    one a 422, each issue naming `Bundle.entry[<i>]` and the element; nothing is written then;
// 3. the plan runs under an import journal (src/fhir/journal.ts): patients are matched to existing accounts by
//    identifier (this server's account id) or email, else created as accounts; records and encounters are created
//    through their services as the caller, so their validation, access rules and audit trail apply;
// 4. when a create fails, every document created so far is removed (newest first) and the error names the entry;
//    a crash leaves a running journal that the recovery pass undoes;
// 5. the answer is a `transaction-response` Bundle, one entry per input entry (`201 Created` + location, `200 OK`
//    for a patient matched to an existing account or an entry that only describes the source system).
import type { FeathersKoaContext } from '@feathersjs/koa'
import { FeathersError } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { Stored } from '../../schema/resolvers'
import type { Account } from '../accounts/accounts.schema'
import { isMemberWith, superadminOf } from '../../access/context'
import { orNull } from '../../billing/store-calls'
import { faultPoint } from '../../billing/fault'
import { fromFhir, type FhirResource, type ImportStep } from '../../fhir/mapping'
import { FhirError, badRequest, forbidden, notFound, outcomeOf } from '../../fhir/outcome'
import { undoEntries, type JournalEntry } from '../../fhir/journal'
import type { Caller } from './caller'
import type { FhirState } from './fhir'

const ID = /^[A-Za-z0-9_-]{1,64}$/

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }

/** A size setting (`1mb`, `500kb`, `2048`) in bytes. */
const bytesOf = (limit: string) => {
  const match = /^\s*([0-9.]+)\s*([kmg]?b)?\s*$/i.exec(limit)
  return match ? Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? 'b').toLowerCase()]) : 1024 ** 2
}

/** The request's JSON body (FHIR or plain JSON), at most `limit`; `__proto__` and `constructor` keys are refused. */
export const readJsonBody = async (ctx: FeathersKoaContext, limit: string): Promise<unknown> => {
  if (!ctx.is('application/fhir+json', 'application/json'))
    throw FhirError.of(415, 'not-supported', 'Send the Bundle as application/fhir+json')
  const max = bytesOf(limit)
  const chunks: Buffer[] = []
  let size = 0
  // Past the limit the rest is read and dropped (up to ten times the limit), so the client reads the 413 rather
  // than a reset connection.
  for await (const chunk of ctx.req) {
    const buffer = chunk as Buffer
    size += buffer.length
    if (size > max * 10) break
    if (size <= max) chunks.push(buffer)
  }
  if (size > max) throw FhirError.of(413, 'too-long', `The body is larger than ${limit}`)
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'), (key, value: unknown) => {
      if (key === '__proto__' || key === 'constructor') throw new SyntaxError(`The key ${key} is not allowed`)
      return value
    })
  } catch (error) {
    throw badRequest(`The body is not valid JSON: ${(error as Error).message}`)
  }
}

/** The facility of the import, checked (step 1). */
const importFacility = async (deps: Deps, caller: Caller, given: unknown) => {
  if (given !== undefined && typeof given !== 'string')
    throw badRequest('facility must be given once', 'facility')
  let facility = given
  if (facility === undefined) {
    const administered = [...new Set(superadminOf(caller.access))]
    if (administered.length !== 1)
      throw badRequest(
        administered.length === 0
          ? 'facility is required: you administer no facility'
          : 'facility is required: you administer several facilities',
        'facility'
      )
    facility = administered[0]
  }
  if (!ID.test(facility) || !(await orNull(deps.stores.organizations._get(facility))))
    throw notFound(`Organization ${facility} is not known or not visible to you`)
  if (!isMemberWith(caller.access, facility))
    throw notFound(`Organization ${facility} is not known or not visible to you`)
  if (!isMemberWith(caller.access, facility, { superadmin: true }))
    throw forbidden('Only superadmins of the facility may import into it')
  return facility
}

interface BundleEntry {
  fullUrl?: unknown
  resource?: unknown
}

/** The resources of the Bundle and their `fullUrl`s (step 2), in entry order. */
const bundleResources = (body: unknown): { resources: FhirResource[]; fullUrls: (string | undefined)[] } => {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('The body must be a Bundle', 'Bundle')
  const bundle = body as { resourceType?: unknown; type?: unknown; entry?: unknown }
  if (bundle.resourceType !== 'Bundle') throw badRequest('resourceType must be Bundle', 'Bundle.resourceType')
  if (bundle.type !== 'transaction' && bundle.type !== 'collection')
    throw badRequest('Bundle.type must be transaction or collection', 'Bundle.type')
  if (!Array.isArray(bundle.entry) || bundle.entry.length === 0)
    throw badRequest('Bundle.entry must list the resources to import', 'Bundle.entry')
  const resources: FhirResource[] = []
  const fullUrls: (string | undefined)[] = []
  ;(bundle.entry as BundleEntry[]).forEach((entry, index) => {
    const resource = entry && typeof entry === 'object' ? entry.resource : undefined
    if (!resource || typeof resource !== 'object' || Array.isArray(resource))
      throw FhirError.of(400, 'required', 'Each entry needs a resource', `Bundle.entry[${index}].resource`)
    resources.push(resource as FhirResource)
    fullUrls.push(typeof entry.fullUrl === 'string' ? entry.fullUrl : undefined)
  })
  return { resources, fullUrls }
}

const entryPath = (index: number, path: string) => {
  const element = path.replace(/^[A-Za-z]+\.?/, '')
  return `Bundle.entry[${index}].resource${element ? `.${element}` : ''}`
}

const normalizeEmail = (email: string) => email.trim().toLowerCase()

interface Outcome {
  status: string
  location?: string
}

export const importBundle = async (
  app: Application,
  deps: Deps,
  state: FhirState,
  caller: Caller,
  query: Record<string, unknown>,
  body: unknown
) => {
  for (const name of Object.keys(query))
    if (name !== 'facility')
      throw FhirError.of(400, 'not-supported', `The parameter ${name} is not supported`, name)
  const facility = await importFacility(deps, caller, query.facility)
  const { resources, fullUrls } = bundleResources(body)
  const planned = fromFhir(resources, { systemBase: deps.settings.get('fhir').systemBase }, { fullUrls })
  if (!planned.ok) {
    const status = planned.issues.some((issue) => issue.code === 'not-supported') ? 400 : 422
    throw new FhirError(
      status,
      planned.issues.map((issue) => ({
        severity: 'error' as const,
        code: issue.code,
        diagnostics: `Bundle.entry[${issue.index}]: ${issue.message}`,
        expression: [entryPath(issue.index, issue.path)]
      }))
    )
  }

  // Step 3: the journal first, then each create, each recorded in it before the next.
  const now = deps.clock.now()
  const journal = await state.imports._create({
    facility,
    actor: caller.account.id,
    status: 'running',
    createdAt: now,
    touchedAt: now,
    created: []
  })
  const created: JournalEntry[] = []
  const record = async (entry: JournalEntry) => {
    created.push(entry)
    await state.imports._patch(journal.id, { created, touchedAt: deps.clock.now() })
    faultPoint('fhir-import-create')
  }
  const ids = new Map<string, string>() // step ref → id
  const outcomes = new Map<number, Outcome>()
  const resolve = (value: unknown) => (typeof value === 'string' && ids.has(value) ? ids.get(value) : value)
  let current: ImportStep | undefined
  try {
    for (const step of planned.plan) {
      current = step
      if (step.kind === 'patient') {
        const { account, matched } = await patientAccount(deps, caller, step, record)
        ids.set(step.ref, account.id)
        outcomes.set(step.index, {
          status: matched ? '200 OK' : '201 Created',
          location: `Patient/${account.id}`
        })
      } else if (step.kind === 'encounter') {
        const data = { ...step.data, facility, patient: resolve(step.data.patient) }
        const encounter = await app.service('medical-encounters').create(data as never, caller.params)
        await record({ store: 'encounters', id: encounter.id })
        ids.set(step.ref, encounter.id)
        outcomes.set(step.index, { status: '201 Created', location: `Encounter/${encounter.id}` })
      } else {
        const data: Record<string, unknown> = { ...step.data, facility, patient: resolve(step.data.patient) }
        if (data.encounter !== undefined) data.encounter = resolve(data.encounter)
        const doc = await app.service('medical-records').create(data as never, caller.params)
        await record({ store: 'records', id: doc.id })
        ids.set(step.ref, doc.id)
        outcomes.set(step.index, {
          status: '201 Created',
          location: `${resources[step.index].resourceType}/${doc.id}`
        })
      }
    }
    current = undefined
    await state.imports._patch(journal.id, { status: 'complete', touchedAt: deps.clock.now() })
  } catch (error) {
    // Step 4: nothing of this import stays.
    await undoEntries(deps, created)
    await state.imports._patch(journal.id, { status: 'undone', touchedAt: deps.clock.now() })
    if (error instanceof FhirError || !current || !(error instanceof FeathersError)) throw error
    // A service refused the entry's document: its fields are the server's names, shown in the diagnostics.
    const index = current.index
    const { status, outcome } = outcomeOf(error)
    throw new FhirError(
      status,
      outcome.issue.map((issue) => ({
        ...issue,
        diagnostics: `Bundle.entry[${index}]: ${issue.diagnostics}`,
        expression: [`Bundle.entry[${index}]`]
      }))
    )
  }

  return {
    resourceType: 'Bundle',
    type: 'transaction-response',
    timestamp: new Date(deps.clock.now()).toISOString(),
    entry: resources.map((_resource, index) => {
      const outcome = outcomes.get(index) ?? { status: '200 OK' }
      return {
        response: { status: outcome.status, ...(outcome.location ? { location: outcome.location } : {}) }
      }
    })
  }
}

/** The account of an imported patient: matched by identifier, then email; else created (and journaled). */
const patientAccount = async (
  deps: Deps,
  caller: Caller,
  step: Extract<ImportStep, { kind: 'patient' }>,
  record: (entry: JournalEntry) => Promise<void>
): Promise<{ account: Stored<Account>; matched: boolean }> => {
  const data = step.data
  if (data.identifier && ID.test(data.identifier)) {
    const found = await orNull(deps.stores.accounts._get(data.identifier))
    if (found) return { account: found, matched: true }
  }
  const email = data.email ? normalizeEmail(data.email) : undefined
  if (email) {
    const [found] = await deps.stores.accounts._find({ query: { email, $limit: 1 }, paginate: false })
    if (found) return { account: found, matched: true }
  }
  if (!email)
    throw FhirError.of(
      422,
      'required',
      'A patient who matches no account needs an email (telecom with system email) to become one',
      `Bundle.entry[${step.index}].resource.telecom`
    )
  const now = deps.clock.now()
  const account = await deps.stores.accounts._create({
    email,
    ...(data.name?.firstName ? { firstName: data.name.firstName } : {}),
    ...(data.name?.middleName ? { middleName: data.name.middleName } : {}),
    ...(data.name?.lastName ? { lastName: data.name.lastName } : {}),
    ...(data.phone && /^\+?[0-9 ()-]{5,20}$/.test(data.phone) ? { mobileNo: data.phone } : {}),
    createdAt: now,
    createdBy: caller.account.id
  })
  await record({ store: 'accounts', id: account.id })
  await deps.announce('accounts', 'created', account)
  return { account, matched: false }
}
