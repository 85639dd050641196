// What a facility's bulk export reads, page by page in `id` order (memory holds one page and sets of ids, never the
// documents): the facility's medical records, encounters and appointments; then the
// patients and the practitioners (members who authored or provide) they reference; then the facility itself. Each
// stored document goes through the mapping (`toFhir`); `_since` keeps the documents changed at or after it.
import type { Deps } from '../deps'
import type { Stored } from '../store'
import type { Account } from '../services/accounts/accounts.schema'
import type { Member } from '../services/organization-members/organization-members.schema'
import { toFhir, type FhirResource, type FhirSource } from './mapping'

export interface ExportFilter {
  facility: string
  since?: number
  pageSize: number
  systemBase: string
  /** Where a file's bytes are read on this server: `<binaryBase>/<id>` (the DocumentReference's content URL). */
  binaryBase?: string
  /** The embedded engine (one process, documents in memory) rather than MongoDB: how pages are read. */
  embedded: boolean
}

type ExportDeps = Pick<Deps, 'stores'>

interface Timestamps {
  id: string
  createdAt?: unknown
  updatedAt?: unknown
}

/** When a stored document last changed (`updatedAt`, else `createdAt`), as `meta.lastUpdated` says. */
export const lastChanged = (doc: Timestamps) =>
  typeof doc.updatedAt === 'number' ? doc.updatedAt : typeof doc.createdAt === 'number' ? doc.createdAt : 0

const changedSince = (doc: Timestamps, since: number | undefined) =>
  since === undefined || lastChanged(doc) >= since

/** What paging needs of a store: its internal find and scan. */
interface Pageable<T> {
  _find(params: { query: Record<string, unknown>; paginate: false }): Promise<T[]>
  _scan(fields: string[], visit: (doc: Record<string, unknown>) => void): Promise<void>
}

/**
 * The pages of a store's documents whose `field` is `value` (and that match `extra`), in `id` order.
 * - MongoDB: keyset paging (`id > last`, sorted by `id`, `pageSize` at a time), each page answered by an index.
 * - Embedded engine: there a page query re-sorts every candidate of the facility, which makes paging quadratic;
 *   instead one scan lists the matching ids (ids only, never the documents) and the pages are read by `$in` on the
 *   unique `id` index.
 */
async function* pages<T extends Timestamps>(
  store: Pageable<T>,
  embedded: boolean,
  field: string,
  value: string,
  extra: Record<string, unknown>,
  pageSize: number
): AsyncGenerator<T[]> {
  if (embedded) {
    const ids: string[] = []
    await store._scan(['id', field], (doc) => {
      if (doc[field] === value && typeof doc.id === 'string') ids.push(doc.id)
    })
    ids.sort()
    for (const chunk of chunks(ids, pageSize)) {
      const page = await store._find({
        query: { id: { $in: chunk }, [field]: value, ...extra, $sort: { id: 1 } },
        paginate: false
      })
      if (page.length > 0) yield page
    }
    return
  }
  let after: string | undefined
  for (;;) {
    const page = await store._find({
      query: {
        [field]: value,
        ...extra,
        ...(after !== undefined ? { id: { $gt: after } } : {}),
        $sort: { id: 1 },
        $limit: pageSize
      },
      paginate: false
    })
    if (page.length === 0) return
    yield page
    after = page[page.length - 1].id
    if (page.length < pageSize) return
  }
}

const chunks = <T>(list: T[], size: number) => {
  const out: T[][] = []
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size))
  return out
}

/** The FHIR resources of a facility's stored documents, one page of documents at a time. */
export async function* exportSources(deps: ExportDeps, filter: ExportFilter): AsyncGenerator<FhirResource[]> {
  const binaryBase = filter.binaryBase
  const ctx = {
    systemBase: filter.systemBase,
    ...(binaryBase ? { attachmentUrl: (id: string) => `${binaryBase}/${encodeURIComponent(id)}` } : {})
  }
  const { stores } = deps
  const patients = new Set<string>()
  const practitioners = new Set<string>()
  const map = (sources: FhirSource[]) => sources.flatMap((source) => toFhir(source, ctx))
  const note = (doc: { patient?: unknown }, ...authors: unknown[]) => {
    if (typeof doc.patient === 'string') patients.add(doc.patient)
    for (const author of authors) if (typeof author === 'string') practitioners.add(author)
  }

  const page$ = <T extends Timestamps>(store: Pageable<T>, extra: Record<string, unknown> = {}) =>
    pages(store, filter.embedded, 'facility', filter.facility, extra, filter.pageSize)
  // A record being removed (marked `deletingAt`) is no longer part of the facility's data.
  for await (const page of page$(stores.records, { deletingAt: { $exists: false } })) {
    const kept = page.filter((doc) => changedSince(doc, filter.since))
    for (const doc of kept) note(doc, doc.createdBy, doc.provider)
    yield map(kept.map((doc) => ({ kind: 'record', doc })))
  }
  for await (const page of page$(stores.encounters, { deleting: { $ne: true } })) {
    const kept = page.filter((doc) => changedSince(doc, filter.since))
    for (const doc of kept) note(doc, doc.createdBy, doc.provider)
    yield map(kept.map((doc) => ({ kind: 'encounter', doc })))
  }
  for await (const page of page$(stores.appointments)) {
    const kept = page.filter((doc) => changedSince(doc, filter.since))
    for (const doc of kept) note(doc, doc.provider)
    yield map(kept.map((doc) => ({ kind: 'appointment', doc })))
  }

  // Files of the attachments service: ready ones only (a pending upload has no bytes yet).
  const files$ = pages(
    stores.attachments,
    filter.embedded,
    'organization',
    filter.facility,
    { status: 'ready' },
    filter.pageSize
  )
  for await (const page of files$) {
    const kept = page.filter((doc) => changedSince(doc, filter.since))
    for (const doc of kept) note(doc, doc.createdBy)
    yield map(kept.map((doc) => ({ kind: 'attachment', doc })))
  }

  for (const ids of chunks([...patients].sort(), filter.pageSize)) {
    const accounts: Stored<Account>[] = await stores.accounts._find({
      query: { id: { $in: ids } },
      paginate: false
    })
    yield map(
      accounts.filter((doc) => changedSince(doc, filter.since)).map((doc) => ({ kind: 'patient', doc }))
    )
  }
  for (const ids of chunks([...practitioners].sort(), filter.pageSize)) {
    const members: Stored<Member>[] = await stores.members._find({
      query: { organization: filter.facility, uid: { $in: ids } },
      paginate: false
    })
    const accounts: Stored<Account>[] = await stores.accounts._find({
      query: { id: { $in: members.map((member) => member.uid) } },
      paginate: false
    })
    const byId = new Map(accounts.map((account) => [account.id, account]))
    const sources: FhirSource[] = []
    for (const member of members) {
      const account = byId.get(member.uid)
      if (account && (changedSince(account, filter.since) || changedSince(member, filter.since)))
        sources.push({ kind: 'practitioner', doc: account, member })
    }
    yield map(sources)
  }
  const organizations = await stores.organizations._find({ query: { id: filter.facility }, paginate: false })
  yield map(
    organizations
      .filter((doc) => changedSince(doc, filter.since))
      .map((doc) => ({ kind: 'organization', doc }))
  )
}
