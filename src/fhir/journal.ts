// The journal of a FHIR Bundle import, which makes the import all or nothing across a crash:
// 1. the journal is stored (`running`) before the first document is created;
// 2. each created document is added to it right after its creation, before the next one;
// 3. the import ends `complete`, or — when a create failed — its documents are removed in reverse order and it ends
//    `undone`;
// 4. a journal still `running` when its import can no longer finish (the process died: at start-up on the embedded
//    engine every one; on MongoDB one older than its staleness limit) is undone by the recovery pass the same way.
// A crash between a document's creation and its journal entry leaves that one document (the window is one store
// write); everything written before it is undone.
import type { Deps } from '../deps'
import type { StoreOptions, StoreService, Stored } from '../store'
import { errorCode } from '../billing/store-calls'

/** A document an import created: the store it lives in and its id. */
export interface JournalEntry {
  store: 'accounts' | 'records' | 'encounters'
  id: string
}

export interface ImportJournal {
  id: string
  facility: string
  actor: string
  status: 'running' | 'complete' | 'undone'
  createdAt: number
  /** Last write of the import (the staleness of a running import is measured from it). */
  touchedAt: number
  created: JournalEntry[]
}

export type ImportStore = StoreService<Stored<ImportJournal>>

export const importStoreOptions: StoreOptions = {
  name: 'fhir-imports',
  paginate: false,
  indexes: [{ fields: { status: 1, touchedAt: 1 } }]
}

type JournalDeps = Pick<Deps, 'stores' | 'clock' | 'logger'>

/** Removes an import's documents, newest first (already removed ones are skipped). */
export const undoEntries = async (deps: JournalDeps, entries: JournalEntry[]) => {
  for (const entry of [...entries].reverse()) {
    try {
      await deps.stores[entry.store]._remove(entry.id)
    } catch (error) {
      if (errorCode(error) !== 404) throw error
    }
  }
}

/**
 * The recovery pass: undoes every import journal still running whose last write is before `cutoff`; answers how
 * many were undone.
 */
export const undoInterruptedImports = async (deps: JournalDeps, store: ImportStore, cutoff: number) => {
  const stale = await store._find({
    query: { status: 'running', touchedAt: { $lt: cutoff } },
    paginate: false
  })
  let undone = 0
  for (const journal of stale) {
    await undoEntries(deps, journal.created)
    await store._patch(journal.id, { status: 'undone', touchedAt: deps.clock.now() })
    deps.logger.warn(
      `FHIR import ${journal.id} was interrupted: its ${journal.created.length} documents were removed`
    )
    undone += 1
  }
  return undone
}
