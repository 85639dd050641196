// The directory's entries: one document per listed source document in their own store (`directory-entries`), with
// the index fields the search queries on both engines: `terms` (folded name-word prefixes and description words),
// `cells` (geohash cells of its point), `sortName` (folded name, for `*` paging). They are rebuilt after every
// write that can change them (syncDirectory, an app-wide hook), before the request returns.
import type { Application, HookContext, NextFunction } from '../declarations'
import { createStore, type StoreService } from '../store'
import { logger } from '../logger'
import { cellsOf } from './geo'
import { affectedBy, type EntryContent, type EntrySource } from './sources'
import { fold, termsOf } from './text'

export interface DirectoryEntry extends EntryContent {
  id: string
  type: string
  /** `<type>:<ref.id>`, unique. */
  key: string
  terms: string[]
  cells: string[]
  sortName: string
}

/** The fields of an entry clients see. */
export const publicFields = ['id', 'type', 'ref', 'tags', 'name', 'description'] as const

export const DIRECTORY_STORE = 'directory-entries'

export const directoryStore = (app: Application): StoreService<DirectoryEntry> => app.get('directoryStore' as any)

/** Creates the entries' store with its indexes (at startup, like every store). */
export const setupDirectoryStore = (app: Application) => {
  const store = createStore<DirectoryEntry>(app, {
    name: DIRECTORY_STORE,
    paginate: false,
    indexes: [
      { fields: { key: 1 }, unique: true },
      { fields: { terms: 1 } },
      { fields: { cells: 1 } },
      { fields: { sortName: 1, id: 1 } },
      { fields: { type: 1 } },
      { fields: { tags: 1 } },
      { fields: { 'ref.type': 1 } },
      { fields: { 'ref.types': 1 } }
    ]
  })
  app.set('directoryStore' as any, store)
  return store
}

/** The stored form of an entry: its content plus the index fields. */
export const entryDocument = (kind: string, content: EntryContent): Omit<DirectoryEntry, 'id'> => ({
  ...content,
  type: kind,
  key: `${kind}:${content.ref.id}`,
  description: content.description ?? '',
  coordinates: content.coordinates ?? null,
  terms: termsOf(content.name, content.description),
  cells: content.coordinates ? cellsOf(content.coordinates) : [],
  sortName: fold(content.name)
})

// Rebuilds of one entry run one after another, so an older rebuild never overwrites a newer one.
const queues = new Map<string, Promise<void>>()
const serialized = (key: string, task: () => Promise<void>) => {
  const run = (queues.get(key) ?? Promise.resolve()).then(task, task)
  const tail = run.catch(() => undefined)
  queues.set(key, tail)
  tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key)
  })
  return run
}

/** Brings the entry of one source document in step with the document as it is now in its store. */
export const rebuildEntry = (app: Application, source: EntrySource, id: string) =>
  serialized(`${source.kind}:${id}`, async () => {
    const store = directoryStore(app)
    const key = `${source.kind}:${id}`
    const doc = await (app.service(source.path as any) as any)._get(id).catch((error: any) => {
      if (error?.code === 404) return null
      throw error
    })
    const content = doc ? await source.build(app, doc) : null
    const existing = (await store._find({ query: { key, $select: ['id'] }, paginate: false })) as { id: string }[]
    if (!content) {
      for (const entry of existing) await store._remove(entry.id)
      return
    }
    const entry = entryDocument(source.kind, content)
    if (existing.length > 0) {
      await store._patch(existing[0].id, entry)
      return
    }
    await store._create(entry).catch(async (error: any) => {
      if (error?.code !== 409) throw error
      const [again] = (await store._find({ query: { key, $select: ['id'] }, paginate: false })) as { id: string }[]
      if (again) await store._patch(again.id, entry)
    })
  })

/**
 * App-wide around hook: after a successful create/update/patch/remove of a document that feeds the directory
 * (a source document, or a document of a trigger service such as the catalogue), rebuilds the entries it alters,
 * awaited, so the change is searchable when the request returns.
 */
export const syncDirectory = async (context: HookContext, next: NextFunction) => {
  await next()
  if (!['create', 'update', 'patch', 'remove'].includes(context.method)) return
  const result: any = context.result
  const docs = Array.isArray(result) ? result : [result]
  const seen = new Set<string>()
  for (const doc of docs) {
    for (const [source, id] of affectedBy(context.path, doc)) {
      const key = `${source.kind}:${id}`
      if (seen.has(key)) continue
      seen.add(key)
      try {
        await rebuildEntry(context.app, source, id)
      } catch (error: any) {
        logger.error(`Directory entry ${key} could not be rebuilt:`, error?.message ?? error)
        throw error
      }
    }
  }
}
