// GET /fhir/Patient/:id/$everything — everything the caller may read about one patient, as a `searchset` Bundle:
// 1. the documents come from the services themselves, called as the caller over REST (medical records, encounters,
//    appointments, attachments when that service exists): their access rules decide what is disclosed (a record
//    shared with someone is all they get) and their audit declarations record every disclosed document;
// 2. the caller sees the patient when they are the patient or may read at least one document about them;
//    otherwise (a stranger, or nothing readable) the answer is a 404, as for any unreadable document;
// 3. the Patient resource (first page), and on each page the Organizations and Practitioners its documents
//    reference, are read from the stores once the caller is known to see the patient; the Patient's disclosure is
//    an audit event of its own (`service: accounts`);
// 4. paging: `_count` documents per page (default 100, at most 1000), a `next` link with an opaque cursor (the
//    phase and offset reached), each page again checked and audited as the caller.
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { Stored } from '../../schema/resolvers'
import type { Member } from '../organization-members/organization-members.schema'
import { auditLog } from '../../audit/log'
import { callCircumstances } from '../../audit/entries'
import { orNull } from '../../billing/store-calls'
import { toFhir, type FhirResource, type FhirSource } from '../../fhir/mapping'
import { badRequest, notFound } from '../../fhir/outcome'
import type { Caller } from './caller'

export const DEFAULT_COUNT = 100
export const MAX_COUNT = 1000

type Kind = 'record' | 'encounter' | 'appointment' | 'attachment'

interface Phase {
  path: string
  kind: Kind
}

/** What is read, in this order across pages. */
const PHASES: Phase[] = [
  { path: 'medical-records', kind: 'record' },
  { path: 'medical-encounters', kind: 'encounter' },
  { path: 'appointments', kind: 'appointment' },
  { path: 'attachments', kind: 'attachment' }
]

interface Cursor {
  patient: string
  phase: number
  skip: number
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url')

const decodeCursor = (text: string, patient: string): Cursor => {
  try {
    const cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>
    if (
      cursor.patient === patient &&
      Number.isInteger(cursor.phase) &&
      Number.isInteger(cursor.skip) &&
      (cursor.phase as number) >= 0 &&
      (cursor.phase as number) < PHASES.length &&
      (cursor.skip as number) >= 0
    )
      return cursor as Cursor
  } catch {
    // below
  }
  throw badRequest('_cursor is not a cursor of this operation (use the next link as given)', '_cursor')
}

/** `_count`: an integer from 1 to MAX_COUNT (default DEFAULT_COUNT). */
export const parseCount = (value: unknown) => {
  if (value === undefined) return DEFAULT_COUNT
  const count = typeof value === 'string' && /^[0-9]{1,7}$/.test(value) ? Number(value) : NaN
  if (!Number.isInteger(count) || count < 1)
    throw badRequest('_count must be a whole number from 1', '_count')
  return Math.min(count, MAX_COUNT)
}

interface Paged {
  total: number
  data: Record<string, unknown>[]
}

interface Finder {
  find(params: object): Promise<unknown>
}

const isPaged = (value: unknown): value is Paged =>
  !!value &&
  typeof value === 'object' &&
  Array.isArray((value as Paged).data) &&
  typeof (value as Paged).total === 'number'

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)

export interface EverythingRequest {
  patient: string
  count: number
  cursor?: string
  /** The URL of this operation without its query (`<base>/fhir/Patient/<id>/$everything`). */
  self: string
  base: string
}

export const everything = async (
  app: Application,
  deps: Deps,
  caller: Caller,
  request: EverythingRequest,
  systemBase: string
) => {
  const { patient, count } = request
  const cursor = request.cursor ? decodeCursor(request.cursor, patient) : { patient, phase: 0, skip: 0 }
  const first = !request.cursor
  // Files link to their bytes on this server (`GET /fhir/Binary/:id`, with the same bearer).
  const ctx = {
    systemBase,
    attachmentUrl: (id: string) => `${request.base}/fhir/Binary/${encodeURIComponent(id)}`
  }

  // 1. The documents of this page, read as the caller.
  const found: { kind: Kind; doc: Record<string, unknown> }[] = []
  let phase = cursor.phase
  let skip = cursor.skip
  while (phase < PHASES.length && found.length < count) {
    const service = app.lookup(PHASES[phase].path)?.service as Finder | undefined
    if (!service) {
      phase += 1
      skip = 0
      continue
    }
    const page = await service.find({
      ...caller.params,
      query: { patient, $sort: { id: 1 }, $limit: count - found.length, $skip: skip }
    })
    if (!isPaged(page)) throw new Error(`${PHASES[phase].path} answered an unpaged list`)
    for (const doc of page.data) found.push({ kind: PHASES[phase].kind, doc })
    skip += page.data.length
    if (skip >= page.total || page.data.length === 0) {
      phase += 1
      skip = 0
    }
  }
  // A page ending exactly at the end of a phase: the empty phases after it are skipped, so that a next link always
  // leads to documents.
  while (phase < PHASES.length && skip === 0) {
    const service = app.lookup(PHASES[phase].path)?.service as Finder | undefined
    const probe = service
      ? await service.find({ ...caller.params, query: { patient, $limit: 0 } })
      : undefined
    if (isPaged(probe) && probe.total > 0) break
    phase += 1
  }
  const more = phase < PHASES.length

  // 2. The patient is visible to themself and to whoever may read something about them (a later page with nothing
  // readable — a stale or forged cursor — is a 404 as well).
  const self = caller.account.id === patient
  if (!self && found.length === 0) throw notFound(`Patient/${patient} is not known or not visible to you`)
  const account = await orNull(deps.stores.accounts._get(patient))
  if (!account) throw notFound(`Patient/${patient} is not known or not visible to you`)

  // 3. The resources: the patient (first page), the page's documents and what they reference.
  const matches: FhirResource[] = []
  const includes: FhirResource[] = []
  if (first) {
    matches.push(...toFhir({ kind: 'patient', doc: account }, ctx))
    const log = auditLog(app)
    if (log?.settings.enabled)
      await log.append([
        {
          at: log.now(),
          actor: caller.account.id,
          action: 'read',
          service: 'accounts',
          ids: [patient],
          patient,
          outcome: 'allowed',
          status: 200,
          ...callCircumstances(caller.params)
        }
      ])
  }
  for (const { kind, doc } of found) matches.push(...toFhir({ kind, doc } as FhirSource, ctx))
  includes.push(...(await referenced(deps, found, ctx)))

  const seen = new Set<string>()
  const entry: { fullUrl: string; resource: FhirResource; search: { mode: 'match' | 'include' } }[] = []
  for (const [list, mode] of [
    [matches, 'match'],
    [includes, 'include']
  ] as const) {
    for (const resource of list) {
      const key = `${resource.resourceType}/${resource.id ?? ''}`
      if (resource.id && seen.has(key)) continue
      seen.add(key)
      entry.push({ fullUrl: `${request.base}/fhir/${key}`, resource, search: { mode } })
    }
  }
  const link = [
    {
      relation: 'self',
      url: request.cursor
        ? `${request.self}?_count=${count}&_cursor=${request.cursor}`
        : `${request.self}?_count=${count}`
    }
  ]
  if (more)
    link.push({
      relation: 'next',
      url: `${request.self}?_count=${count}&_cursor=${encodeCursor({ patient, phase, skip })}`
    })
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    timestamp: new Date(deps.clock.now()).toISOString(),
    link,
    entry
  }
}

/** The Organizations (facilities) and Practitioners (members who authored or provide) the documents reference. */
const referenced = async (
  deps: Deps,
  found: { kind: Kind; doc: Record<string, unknown> }[],
  ctx: { systemBase: string }
): Promise<FhirResource[]> => {
  const facilities = new Set<string>()
  const people = new Map<string, Set<string>>() // facility → account ids
  for (const { doc } of found) {
    const facility = str(doc.facility) ?? str(doc.organization)
    if (!facility) continue
    facilities.add(facility)
    for (const author of [doc.createdBy, doc.provider]) {
      const id = str(author)
      if (!id) continue
      if (!people.has(facility)) people.set(facility, new Set())
      people.get(facility)?.add(id)
    }
  }
  const resources: FhirResource[] = []
  if (facilities.size > 0) {
    const organizations = await deps.stores.organizations._find({
      query: { id: { $in: [...facilities] } },
      paginate: false
    })
    for (const doc of organizations) resources.push(...toFhir({ kind: 'organization', doc }, ctx))
  }
  for (const [facility, ids] of people) {
    const members: Stored<Member>[] = await deps.stores.members._find({
      query: { organization: facility, uid: { $in: [...ids] } },
      paginate: false
    })
    if (members.length === 0) continue
    const accounts = await deps.stores.accounts._find({
      query: { id: { $in: members.map((member) => member.uid) } },
      paginate: false
    })
    const byId = new Map(accounts.map((account) => [account.id, account]))
    for (const member of members) {
      const account = byId.get(member.uid)
      if (account) resources.push(...toFhir({ kind: 'practitioner', doc: account, member }, ctx))
    }
  }
  return resources
}
