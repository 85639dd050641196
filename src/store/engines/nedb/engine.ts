// The embedded engine: one NeDB datastore per collection, persisted under DATA_DIR (whose lock the app holds:
// src/store/data-lock.ts), with the tuning of this folder — indexed candidates and MongoDB's query semantics
// (./candidates.ts, ./match.ts), group commit (./commit.ts), journal-first append-only collections (./journal.ts),
// a faster loader (./load.ts) and a diagnosis of a file that does not load (./repair.ts).
import fs from 'node:fs'
import path from 'node:path'
import { StartupError } from '../../../startup-error'
import type { DataLock } from '../../data-lock'
import type { StoreSync } from '../../sync'
import type { AdapterSettings, Engine, EngineAdapter } from '../engine'
import { BulkLoadedNeDB } from './bulk-index'
import type { IndexedNeDB } from './candidates'
import { useGroupCommit, type GroupCommit } from './commit'
import { NeDBJournal } from './journal'
import { diagnoseDataFile } from './repair'
import { NedbAdapter } from './adapter'
import { collectAfterLoad, HEAP_GROWING_PERCENT } from './heap'

export interface NedbEngine extends Engine {
  kind: 'nedb'
  /** The commit log of each collection (their write statistics, for tests and benches). */
  commits: Map<string, GroupCommit>
}

export const nedbEngine = (
  dataDir: string,
  lock: DataLock,
  compactionIntervalMs: number,
  sync: StoreSync,
  /** NEDB_HEAP_GROWING_PERCENT (./heap.ts; when not given, HEAP_GROWING_PERCENT). */
  heapGrowingPercent = HEAP_GROWING_PERCENT
): NedbEngine => {
  const stores = new Map<string, IndexedNeDB>()
  const commits = new Map<string, GroupCommit>()
  const journals = new Map<string, NeDBJournal>()
  // Collections whose file was loaded (a deferred one may never be; its operations would wait for the load forever).
  const opened = new Set<IndexedNeDB>()
  const collection = (name: string) => {
    let store = stores.get(name)
    if (!store) {
      store = new BulkLoadedNeDB({ filename: path.join(dataDir, `${name}.db`) })
      // Appends of concurrent writes share one file write and sync (./commit.ts, STORE_SYNC).
      const commit = useGroupCommit(store, sync)
      if (commit) commits.set(name, commit)
      // The append-only files are rewritten (atomically: temp file + rename) now and then to stay small.
      if (compactionIntervalMs > 0) store.setAutocompactionInterval(compactionIntervalMs)
      stores.set(name, store)
    }
    return store
  }
  // A journal-first collection: the file is the journal's, the datastore its in-memory copy.
  const journal = (name: string) => {
    let log = journals.get(name)
    if (!log) {
      const copy = new BulkLoadedNeDB()
      log = new NeDBJournal(path.join(dataDir, `${name}.db`), copy, sync)
      stores.set(name, copy)
      journals.set(name, log)
    }
    return log
  }
  return {
    kind: 'nedb',
    commits,
    adapter(name: string, settings: AdapterSettings, journaled: boolean) {
      // (the journal first: it makes the collection's datastore)
      const log = journaled ? journal(name) : undefined
      const adapter: EngineAdapter = new NedbAdapter(settings, collection(name))
      return { adapter, journal: log }
    },
    async ensureIndexes(name, indexes) {
      const store = collection(name)
      // NeDB uses a compound index only when a query pins every one of its fields, never its leading field
      // alone (as MongoDB does), so a non-unique compound index is kept on its leading field here.
      const declared = indexes.map((index) => {
        const fields = Object.keys(index.fields)
        return {
          fieldName: fields.length === 1 || !index.unique ? fields[0] : fields,
          unique: !!index.unique,
          sparse: !!index.sparse
        }
      })
      try {
        await store.loadDatabaseAsync()
        // Only a loaded collection is compacted at close: one that failed to load holds nothing (compacting it
        // would empty its file).
        opened.add(store)
        for (const index of declared) await store.ensureIndexAsync(index)
        await journals.get(name)?.open()
        // (a large load's working sets returned before serving: ./heap.ts)
        collectAfterLoad(store.documentCount, heapGrowingPercent)
      } catch (error) {
        // A duplicate unique value or unreadable lines: one line naming the file, the line, the index and the fix.
        const file = path.join(dataDir, `${name}.db`)
        const threshold = journals.has(name)
          ? undefined
          : (store as unknown as { persistence: { corruptAlertThreshold: number } }).persistence
              .corruptAlertThreshold
        let problem: string | undefined
        try {
          problem = diagnoseDataFile(
            file,
            declared.map((index) => ({ ...index, fieldName: [index.fieldName].flat().sort().join(',') })),
            threshold
          )
        } catch {
          problem = undefined // unreadable file: the original error says why
        }
        throw problem ? new StartupError(problem, { cause: error }) : error
      }
    },
    async ping() {
      await fs.promises.access(dataDir, fs.constants.R_OK | fs.constants.W_OK)
    },
    async close() {
      try {
        for (const [name, store] of stores) {
          if (journals.has(name)) continue
          store.stopAutocompaction()
          if (!opened.has(store)) continue
          await store.compactDatafileAsync().catch(() => undefined)
        }
        for (const commit of commits.values()) {
          await commit.drain()
          commit.release()
        }
        for (const log of journals.values()) await log.close()
      } finally {
        // Last: nothing of this app writes to the folder from now on.
        lock.release()
      }
    }
  }
}
