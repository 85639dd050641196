// The directory's entries: one document per listed source document in their own store (`directory-entries`: the
// entry's public content, its `key` and point; no index fields), and an in-process search index over them
// (src/directory/search-index.ts) on every instance. Entries are rebuilt from their sources after every write that
// can change them (syncDirectory, an app-wide hook) before the request returns; each rebuild writes the store,
// updates this instance's index and tells the other instances (a notice), which re-read the entry into theirs.
// Writes that could not be followed (a crash between the source write and the entry write, a failed rebuild) are
// repaired from their sources: src/directory/repair.ts.
import type { Application } from '../declarations'
import { serviceAt, createStore, type StoreService } from '../store'
import { logger } from '../logger'
import { sendNotice } from '../cluster/notices'
import type { EntryContent, EntrySource } from './sources'
import { SearchIndex } from './search-index'
import { appSlot } from '../runtime'

export interface DirectoryEntry extends EntryContent {
  id: string
  type: string
  /** `<type>:<ref.id>`, unique. */
  key: string
  description: string
  coordinates: EntryContent['coordinates']
}

/** The fields of an entry clients see. */
export const publicFields = ['id', 'type', 'ref', 'tags', 'name', 'description'] as const
/** The fields the search index is built from. */
const indexedFields = ['id', 'key', 'type', 'ref', 'tags', 'name', 'description', 'coordinates']

export const DIRECTORY_STORE = 'directory-entries'
/** The notice (to other instances) that the entry with `key` changed in the store. */
export const ENTRY_NOTICE = 'directory-entry'

export interface DirectoryState {
  store: StoreService<DirectoryEntry>
  index: SearchIndex
  /** Resolves once the index holds every stored entry (start-up load); null until the load starts. */
  loading: Promise<void> | null
  loaded: boolean
  /** Milliseconds the start-up load took. */
  loadMs?: number
}

// Created when the directory service is registered.
const directorySlot = appSlot<DirectoryState>('directory')
const stateOf = (app: Application): DirectoryState => directorySlot.require(app)

export const directoryStore = (app: Application): StoreService<DirectoryEntry> => stateOf(app).store

/** Creates the entries' store (loaded in the background after start-up, see `loadDirectory`) and the index. */
export const setupDirectoryStore = (app: Application) => {
  const store = createStore<DirectoryEntry>(app, {
    name: DIRECTORY_STORE,
    paginate: false,
    deferLoad: true,
    indexes: [{ fields: { key: 1 }, unique: true }]
  })
  const state: DirectoryState = { store, index: new SearchIndex(), loading: null, loaded: false }
  directorySlot.set(app, state)
  return store
}

/**
 * Loads the entries' store and builds the index from it (once; started in the background after start-up, or by
 * the first search). Searches and entry updates wait for it, so answers are never built from a partial index.
 */
export const loadDirectory = (app: Application): Promise<void> => {
  const state = stateOf(app)
  state.loading ??= (async () => {
    const started = Date.now()
    await state.store.loadDeferred?.()
    // (each stored entry as the store holds it, not a copy of the whole collection)
    let count = 0
    await state.index.load((add) =>
      state.store._scan(indexedFields, (entry) => {
        add(entry as DirectoryEntry)
        count++
      })
    )
    state.loaded = true
    state.loadMs = Date.now() - started
    logger.info(`Directory: ${count} entries indexed in ${state.loadMs} ms`)
  })()
  return state.loading
}

/** The search index, once loaded. */
export const directoryIndex = async (app: Application): Promise<SearchIndex> => {
  await loadDirectory(app)
  return stateOf(app).index
}

/** The stored form of an entry: its content, kind and key. */
export const entryDocument = (kind: string, content: EntryContent): Omit<DirectoryEntry, 'id'> => ({
  type: kind,
  key: `${kind}:${content.ref.id}`,
  ref: content.ref,
  name: content.name,
  description: content.description ?? '',
  tags: content.tags,
  coordinates: content.coordinates ?? null
})

// Updates of one entry run one after another, so an older one never overwrites a newer one.
const queues = new Map<string, Promise<void>>()
export const serialized = (key: string, task: () => Promise<void>) => {
  const run = (queues.get(key) ?? Promise.resolve()).then(task, task)
  const tail = run.catch(() => undefined)
  queues.set(key, tail)
  tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key)
  })
  return run
}

const sameContent = (a: Omit<DirectoryEntry, 'id'>, b: Omit<DirectoryEntry, 'id'>) =>
  (['type', 'key', 'ref', 'name', 'description', 'tags', 'coordinates'] as const).every(
    (field) => JSON.stringify(a[field] ?? null) === JSON.stringify(b[field] ?? null)
  )

const findByKey = async (app: Application, key: string) =>
  (await directoryStore(app)._find({
    query: { key, $select: indexedFields },
    paginate: false
  })) as DirectoryEntry[]

/** Puts the stored entry of `key` (or its absence) into this instance's index. */
const indexStored = async (app: Application, key: string, stored: DirectoryEntry | null) => {
  const index = await directoryIndex(app)
  if (stored) index.put(stored)
  else index.remove(key)
}

/** Re-reads the entry of `key` from the store into this instance's index (another instance changed it). */
export const refreshEntry = (app: Application, key: string) =>
  serialized(key, async () => {
    const [stored] = await findByKey(app, key)
    await indexStored(app, key, stored ?? null)
  })

/**
 * Test-only fault: with NODE_ENV=test, the next `directoryFailRebuilds` rebuilds (an app setting tests set on a
 * running app) fail as a store outage would.
 */
const injectedFailure = (app: Application) => {
  if (process.env.NODE_ENV !== 'test') return
  const left = Number(app.get('directoryFailRebuilds') ?? 0)
  if (left <= 0) return
  app.set('directoryFailRebuilds', left - 1)
  throw new Error('injected directory rebuild failure')
}

/** Brings the entry of one source document in step with the document as it is now in its store. */
export const rebuildEntry = (app: Application, source: EntrySource, id: string) => {
  const key = `${source.kind}:${id}`
  return serialized(key, async () => {
    injectedFailure(app)
    const store = directoryStore(app)
    const doc = await serviceAt(app, source.path)
      ._get(id)
      .catch((error: any) => {
        if (error?.code === 404) return null
        throw error
      })
    const content = doc ? await source.build(app, doc) : null
    const existing = await findByKey(app, key)
    let stored: DirectoryEntry | null = null
    if (!content) {
      for (const entry of existing) await store._remove(entry.id)
      if (existing.length === 0 && !(await directoryIndex(app)).has(key)) return
    } else {
      const entry = entryDocument(source.kind, content)
      if (existing.length > 0 && sameContent(existing[0], entry)) {
        // Already stored (e.g. by another instance): only this instance's index may lag.
        const index = await directoryIndex(app)
        if (!index.holds(existing[0])) index.put(existing[0])
        return
      }
      if (existing.length > 0) stored = (await store._patch(existing[0].id, entry)) as DirectoryEntry
      else {
        stored = await store._create(entry).catch(async (error: any) => {
          if (error?.code !== 409) throw error
          const [again] = await findByKey(app, key)
          return (await store._patch(again.id, entry)) as DirectoryEntry
        })
      }
    }
    await indexStored(app, key, stored)
    await sendNotice(app, ENTRY_NOTICE, { key }).catch((error: any) =>
      logger.error(`Directory notice for ${key} failed:`, error?.message ?? error)
    )
  })
}

// The hook and the repair live in src/directory/repair.ts.
export { syncDirectory } from './repair'
