// The directory's entries: one document per listed source document in their own store (`directory-entries`: the
// entry's public content, its `key` and point; no index fields), and an in-process search index over them
// (src/directory/search-index.ts) on every instance. Entries are rebuilt from their sources after every write that
// can change them (the directory's subscribers of the app's `record.*` events, src/directory/repair.ts) before the
// request returns; each rebuild writes the store, updates this instance's index and tells the other instances (a
// notice), which re-read the entry into theirs. Writes that could not be followed (a crash between the source
// write and the entry write, a failed rebuild) are repaired from their sources: src/directory/repair.ts.
// One `Directory` per app (built when the directory service registers): its sources, store, index and queues.
import type { Deps } from '../deps'
import type { StoreService } from '../store'
import { affectedBy, type EntryContent, type EntrySource } from './sources'
import { SearchIndex } from './search-index'

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

const sameContent = (a: Omit<DirectoryEntry, 'id'>, b: Omit<DirectoryEntry, 'id'>) =>
  (['type', 'key', 'ref', 'name', 'description', 'tags', 'coordinates'] as const).every(
    (field) => JSON.stringify(a[field] ?? null) === JSON.stringify(b[field] ?? null)
  )

/** The `code` of a Feathers error (or undefined). */
export const errorCode = (error: unknown) => (error as { code?: unknown } | null)?.code
/** A failure's message for the log. */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : error)

/** What the directory needs besides the app's dependencies (built by the directory service's registration). */
export interface DirectoryParts {
  /** The entries' store (loaded in the background after start-up: `load`). */
  store: StoreService<DirectoryEntry>
  /** Tells the other instances that the entry of `key` changed in the store. */
  notify(key: string): Promise<void>
  /** Test-only fault: throws when the test asked the next rebuilds to fail (as a store outage would). */
  injectedFailure(): void
}

export class Directory {
  /** The sources listed (one per kind). */
  private list: EntrySource[] = []
  readonly index = new SearchIndex()
  /** Resolves once the index holds every stored entry (start-up load); null until the load starts. */
  private loading: Promise<void> | null = null
  loaded = false
  /** Milliseconds the start-up load took. */
  loadMs?: number
  // Updates of one entry run one after another, so an older one never overwrites a newer one.
  private readonly queues = new Map<string, Promise<void>>()

  constructor(
    private readonly deps: Deps,
    private readonly parts: DirectoryParts
  ) {}

  get store() {
    return this.parts.store
  }

  /** Lists the documents of `source` (replacing a source of the same kind). */
  define(source: EntrySource) {
    this.list = [...this.list.filter((s) => s.kind !== source.kind), source]
  }

  get sources(): readonly EntrySource[] {
    return this.list
  }

  sourceByKind(kind: string) {
    return this.list.find((source) => source.kind === kind)
  }

  /** Which entries a change of a document of `path` may alter: [source, source document id] pairs. */
  affectedBy(path: string, doc: unknown) {
    return affectedBy(this.list, path, doc)
  }

  /** The services whose writes may alter entries: the sources and their triggers. */
  watchedPaths() {
    const paths = new Set<string>()
    for (const source of this.list) {
      paths.add(source.path)
      for (const trigger of source.triggers ?? []) paths.add(trigger.path)
    }
    return paths
  }

  /**
   * Loads the entries' store and builds the index from it (once; started in the background after start-up, or by
   * the first search). Searches and entry updates wait for it, so answers are never built from a partial index.
   */
  load(): Promise<void> {
    this.loading ??= (async () => {
      const started = Date.now()
      await this.store.loadDeferred?.()
      // (each stored entry as the store holds it, not a copy of the whole collection)
      let count = 0
      await this.index.load((add) =>
        this.store._scan(indexedFields, (entry) => {
          add(entry as DirectoryEntry)
          count++
        })
      )
      this.loaded = true
      this.loadMs = Date.now() - started
      this.deps.logger.info(`Directory: ${count} entries indexed in ${this.loadMs} ms`)
    })()
    return this.loading
  }

  /** The search index, once loaded. */
  async loadedIndex(): Promise<SearchIndex> {
    await this.load()
    return this.index
  }

  private serialized(key: string, task: () => Promise<void>) {
    const run = (this.queues.get(key) ?? Promise.resolve()).then(task, task)
    const tail = run.catch(() => undefined)
    this.queues.set(key, tail)
    tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key)
    })
    return run
  }

  private async findByKey(key: string) {
    return (await this.store._find({
      query: { key, $select: indexedFields },
      paginate: false
    })) as DirectoryEntry[]
  }

  /** Puts the stored entry of `key` (or its absence) into this instance's index. */
  private async indexStored(key: string, stored: DirectoryEntry | null) {
    const index = await this.loadedIndex()
    if (stored) index.put(stored)
    else index.remove(key)
  }

  /** Re-reads the entry of `key` from the store into this instance's index (another instance changed it). */
  refreshEntry(key: string) {
    return this.serialized(key, async () => {
      const [stored] = await this.findByKey(key)
      await this.indexStored(key, stored ?? null)
    })
  }

  /** Brings the entry of one source document in step with the document as it is now in its store. */
  rebuildEntry(source: EntrySource, id: string) {
    const key = `${source.kind}:${id}`
    return this.serialized(key, async () => {
      this.parts.injectedFailure()
      const store = this.store
      const doc = await source
        .read(this.deps.stores)
        ._get(id)
        .catch((error: unknown) => {
          if (errorCode(error) === 404) return null
          throw error
        })
      const content = doc ? await source.build(this.deps, doc) : null
      const existing = await this.findByKey(key)
      let stored: DirectoryEntry | null = null
      if (!content) {
        for (const entry of existing) await store._remove(entry.id)
        if (existing.length === 0 && !(await this.loadedIndex()).has(key)) return
      } else {
        const entry = entryDocument(source.kind, content)
        if (existing.length > 0 && sameContent(existing[0], entry)) {
          // Already stored (e.g. by another instance): only this instance's index may lag.
          const index = await this.loadedIndex()
          if (!index.holds(existing[0])) index.put(existing[0])
          return
        }
        if (existing.length > 0) stored = (await store._patch(existing[0].id, entry)) as DirectoryEntry
        else {
          stored = await store._create(entry).catch(async (error: unknown) => {
            if (errorCode(error) !== 409) throw error
            const [again] = await this.findByKey(key)
            return (await store._patch(again.id, entry)) as DirectoryEntry
          })
        }
      }
      await this.indexStored(key, stored)
      await this.parts
        .notify(key)
        .catch((error: unknown) =>
          this.deps.logger.error(`Directory notice for ${key} failed:`, messageOf(error))
        )
    })
  }
}
