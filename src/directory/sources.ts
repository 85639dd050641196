// Entry sources: what may be listed in the unified directory. Each source names the service whose documents become
// entries (`path`), builds an entry from one document (or says it is not listed), and names the other services
// whose changes alter its entries (`triggers`). The search (src/services/unified-directory) knows nothing of them:
// listing another kind (e.g. practitioners) is one more `defineEntrySource` call.
import type { Application } from '../declarations'
import type { Point } from './geo'
import { serviceAt } from '../store'

/** What a source makes of one listed document; the directory adds the id, index fields and `type`. */
export interface EntryContent {
  ref: { id: string; type?: string; types?: string[] }
  name: string
  description?: string
  tags: string[]
  coordinates?: Point | null
}

export interface EntrySource {
  /** The entries' `type` (e.g. `organization`). */
  kind: string
  /** The service whose documents are listed. */
  path: string
  /** The entry of `doc`, or null when it is not listed. Only public fields may go into it. */
  build(app: Application, doc: any): Promise<EntryContent | null>
  /** Changes of other services that alter entries: for a changed document there, the ids of the source documents to rebuild. */
  triggers?: { path: string; sources(doc: any): string[] }[]
}

const sources: EntrySource[] = []

export const defineEntrySource = (source: EntrySource) => {
  sources.splice(0, sources.length, ...sources.filter((s) => s.kind !== source.kind), source)
}

export const entrySources = (): readonly EntrySource[] => sources

/** Which entries a change of a document of `path` may alter: [source, source document id] pairs. */
export const affectedBy = (path: string, doc: any): [EntrySource, string][] => {
  if (!doc || typeof doc !== 'object') return []
  const found: [EntrySource, string][] = []
  for (const source of sources) {
    if (source.path === path && typeof doc.id === 'string') found.push([source, doc.id])
    for (const trigger of source.triggers ?? []) {
      if (trigger.path !== path) continue
      for (const id of trigger.sources(doc)) if (typeof id === 'string' && id) found.push([source, id])
    }
  }
  return found
}

// Organizations: listed once their superadmins set `directory.listed`; their catalogue's active services give the
// `sto:<type>` tags. Nothing else of the organization (contact details, members, billing) goes into the entry.
defineEntrySource({
  kind: 'organization',
  path: 'organizations',
  async build(app, doc) {
    if (doc?.directory?.listed !== true) return null
    const services = (await serviceAt(app, 'services')._find({
      query: { facility: doc.id, active: true, $select: ['type'] },
      paginate: false
    })) as { type?: string }[]
    const offered = [
      ...new Set(services.map((s) => s.type).filter((t): t is string => typeof t === 'string'))
    ].map((t) => `sto:${t}`)
    const own: string[] = Array.isArray(doc.tags) ? doc.tags : []
    return {
      ref: { id: doc.id, type: doc.type, types: Array.isArray(doc.types) ? doc.types : [] },
      name: doc.name,
      description: doc.description ?? '',
      tags: [...new Set([...own, ...offered])].sort(),
      coordinates:
        doc.coordinates && typeof doc.coordinates.lat === 'number' && typeof doc.coordinates.lng === 'number'
          ? { lat: doc.coordinates.lat, lng: doc.coordinates.lng }
          : null
    }
  },
  triggers: [{ path: 'services', sources: (service) => [service.facility] }]
})
