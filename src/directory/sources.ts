// Entry sources: what may be listed in the unified directory. Each source names the service whose documents become
// entries (`path`, and `read`: its store), builds an entry from one document (or says it is not listed), and names
// the other services whose changes alter its entries (`triggers`). The search (src/services/unified-directory)
// knows nothing of them: listing another kind (e.g. practitioners) is one more source handed to the app's
// directory (`Directory.define`) when the directory service registers.
import type { Id } from '@feathersjs/feathers'
import type { Deps, Stores } from '../deps'
import type { InternalParams } from '../store'
import type { Point } from './geo'

/** A document of a source or trigger service, as its store holds it. */
export type SourceDoc = Record<string, unknown>

/** What the directory reads of a source's (or a trigger's) store. */
export interface DocReader {
  _get(id: Id, params?: InternalParams): Promise<SourceDoc>
  _find(params: InternalParams & { paginate: false }): Promise<SourceDoc[]>
}

/** What a source makes of one listed document; the directory adds the id, index fields and `type`. */
export interface EntryContent {
  ref: { id: string; type?: string; types?: string[] }
  name: string
  description?: string
  tags: string[]
  coordinates?: Point | null
}

export interface EntryTrigger {
  /** The service whose changes alter entries of the source. */
  path: string
  read(stores: Stores): DocReader
  /** For a changed document there, the ids of the source documents to rebuild. */
  sources(doc: SourceDoc): unknown[]
}

export interface EntrySource {
  /** The entries' `type` (e.g. `organization`). */
  kind: string
  /** The service whose documents are listed. */
  path: string
  read(stores: Stores): DocReader
  /** The entry of `doc`, or null when it is not listed. Only public fields may go into it. */
  build(deps: Deps, doc: SourceDoc): Promise<EntryContent | null>
  /** Changes of other services that alter entries. */
  triggers?: EntryTrigger[]
}

/** Which entries a change of a document of `path` may alter: [source, source document id] pairs. */
export const affectedBy = (
  sources: readonly EntrySource[],
  path: string,
  doc: unknown
): [EntrySource, string][] => {
  if (!doc || typeof doc !== 'object') return []
  const fields = doc as SourceDoc
  const found: [EntrySource, string][] = []
  for (const source of sources) {
    if (source.path === path && typeof fields.id === 'string') found.push([source, fields.id])
    for (const trigger of source.triggers ?? []) {
      if (trigger.path !== path) continue
      for (const id of trigger.sources(fields)) if (typeof id === 'string' && id) found.push([source, id])
    }
  }
  return found
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((one): one is string => typeof one === 'string') : []

// Organizations: listed once their superadmins set `directory.listed`; their catalogue's active services give the
// `sto:<type>` tags. Nothing else of the organization (contact details, members, billing) goes into the entry.
export const organizationSource: EntrySource = {
  kind: 'organization',
  path: 'organizations',
  read: (stores) => stores.organizations,
  async build(deps, doc) {
    const directory = doc.directory as { listed?: unknown } | undefined
    if (directory?.listed !== true) return null
    const services = await deps.stores.services._find({
      query: { facility: doc.id, active: true, $select: ['type'] },
      paginate: false
    })
    const offered = [
      ...new Set(services.map((s) => s.type).filter((t): t is string => typeof t === 'string'))
    ].map((t) => `sto:${t}`)
    const coordinates = doc.coordinates as { lat?: unknown; lng?: unknown } | null | undefined
    return {
      ref: { id: String(doc.id), type: doc.type as string | undefined, types: strings(doc.types) },
      name: doc.name as string,
      description: (doc.description as string | undefined) ?? '',
      tags: [...new Set([...strings(doc.tags), ...offered])].sort(),
      coordinates:
        coordinates && typeof coordinates.lat === 'number' && typeof coordinates.lng === 'number'
          ? { lat: coordinates.lat, lng: coordinates.lng }
          : null
    }
  },
  triggers: [
    { path: 'services', read: (stores) => stores.services, sources: (service) => [service.facility] }
  ]
}
