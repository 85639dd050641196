// Group commit for the embedded engine's data files, so concurrent writes share one file write (and one sync)
// instead of queueing behind each other's open/append/close. What "written" means is the `storeSync` setting
// (STORE_SYNC):
// - `batch` (default): a write is answered once its line is in the data file AND fdatasync'ed — on the disk,
//   surviving a kill -9 and a power loss. While one batch is being synced, the writes that arrive meanwhile are
//   collected and written and synced together as the next batch, so 50 concurrent writes cost a few syncs, not 50.
// - `os`: answered once its line was handed to the OS (write(2) returned): survives a kill -9 of the process, not a
//   power loss or kernel crash (the OS flushes its page cache within seconds). Batches are formed the same way.
// - `always`: NeDB's own order — every write is written and fdatasync'ed before the next one starts (no sharing;
//   the slowest, the same guarantee as `batch`).
// In every mode the in-memory state changes first (NeDB's model): another reader may see a write a few
// milliseconds before it is on disk; the writer itself is only answered after.
// The file is held open (append mode) between writes and reopened after NeDB rewrites it (compaction: temp file +
// rename), which waits for the pending batch first, so no appended line can land in the replaced file.
import fs from 'node:fs'
import path from 'node:path'
import { serialize } from '@seald-io/nedb/lib/model'
import { readDataLines, type LoadedData } from './load'

import type { StoreSync } from '../../sync'
export { STORE_SYNC_MODES, type StoreSync } from '../../sync'

interface Batch {
  text: string
  done: Promise<void>
  resolve(): void
  reject(error: unknown): void
}

const newBatch = (): Batch => {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const done = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  // A failed batch is reported to each of its writers; the promise itself must not count as unhandled.
  done.catch(() => undefined)
  return { text: '', done, resolve, reject }
}

/**
 * Cuts a torn last line off a data file (a write cut short by a crash: never acknowledged, since answers wait for
 * the whole batch), so that lines appended later do not run into it.
 */
/**
 * Replaces `file` with `lines` (one per line) as a whole or not at all: written to `temp` in 1 MB writes, synced,
 * renamed over the file, and the folder synced so the rename survives a power loss (where the platform allows).
 */
export const replaceFileWithLines = (file: string, temp: string, lines: Iterable<string>) => {
  const fd = fs.openSync(temp, 'w', 0o644)
  try {
    let text = ''
    for (const line of lines) {
      text += line + '\n'
      if (text.length > 1 << 20) {
        fs.writeSync(fd, text)
        text = ''
      }
    }
    if (text.length > 0) fs.writeSync(fd, text)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(temp, file)
  try {
    const dirFd = fs.openSync(path.dirname(file), 'r')
    fs.fsyncSync(dirFd)
    fs.closeSync(dirFd)
  } catch {
    // not every platform syncs a directory
  }
}

export const cutTornLine = (filename: string) => {
  if (!fs.existsSync(filename)) return
  const size = fs.statSync(filename).size
  if (size === 0) return
  const fd = fs.openSync(filename, 'r+')
  try {
    // The last newline, read backwards in chunks; everything after it is torn.
    const chunk = Buffer.alloc(Math.min(size, 1 << 16))
    let end = size
    let keep = 0
    while (end > 0) {
      const start = Math.max(0, end - chunk.length)
      const read = fs.readSync(fd, chunk, 0, end - start, start)
      const last = chunk.subarray(0, read).lastIndexOf(0x0a)
      if (last >= 0) {
        keep = start + last + 1
        break
      }
      end = start
    }
    if (keep < size) fs.ftruncateSync(fd, keep)
  } finally {
    fs.closeSync(fd)
  }
}

const datasync = (fd: number) =>
  new Promise<void>((resolve, reject) => fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())))

/** The commit log of one data file. */
export class GroupCommit {
  private fd: number | null = null
  private open: Batch = newBatch()
  private flushing: Promise<void> | null = null
  /** Writes to the file and operations carried (the bench reports operations per write). */
  readonly stats = { writes: 0, operations: 0 }

  constructor(
    private readonly filename: string,
    readonly mode: StoreSync
  ) {}

  private handle() {
    this.fd ??= fs.openSync(this.filename, 'a', 0o644)
    return this.fd
  }

  private writeAll(text: string) {
    const buffer = Buffer.from(text, 'utf8')
    const fd = this.handle()
    let offset = 0
    while (offset < buffer.length) offset += fs.writeSync(fd, buffer, offset, buffer.length - offset)
    this.stats.writes += 1
  }

  /** Serialized lines of documents, as NeDB writes them. */
  static lines(docs: unknown[]) {
    let text = ''
    for (const doc of docs) text += serialize(doc) + '\n'
    return text
  }

  /** `always`: writes and syncs the lines now (the caller waits, as NeDB's executor does for its own append). */
  async writeNow(text: string) {
    if (text.length === 0) return
    this.stats.operations += 1
    this.writeAll(text)
    await datasync(this.handle())
  }

  /**
   * `batch` and `os`: adds the lines to the open batch and returns the promise to await before answering, which
   * settles when that batch is written (and, for `batch`, synced).
   */
  enqueue(text: string): Promise<void> {
    if (text.length === 0) return Promise.resolve()
    this.stats.operations += 1
    const batch = this.open
    batch.text += text
    this.flushing ??= this.flushLoop()
    return batch.done
  }

  // Writes open batches one after the other until none is left; in `batch` mode each is synced before its
  // writers are answered, and the next batch collects while the sync runs.
  private async flushLoop() {
    // One turn of the event loop lets the writes of requests arriving together join the first batch.
    await new Promise((resolve) => setImmediate(resolve))
    try {
      while (this.open.text.length > 0) {
        const batch = this.open
        this.open = newBatch()
        try {
          this.writeAll(batch.text)
          if (this.mode === 'batch') await datasync(this.handle())
          batch.resolve()
        } catch (error) {
          batch.reject(error)
        }
      }
    } finally {
      this.flushing = null
    }
  }

  /** Whether a batch is being written or synced (the held file must stay open meanwhile). */
  get busy() {
    return this.flushing !== null
  }

  /** Resolves once every line added so far is written (before the file is rewritten or closed). */
  async drain() {
    while (this.flushing) await this.flushing
  }

  /** Closes the held file (after a drain); the next write reopens it, e.g. after compaction replaced the file. */
  release() {
    if (this.fd === null) return
    fs.closeSync(this.fd)
    this.fd = null
  }
}

// What of NeDB's internals the commit log replaces or calls (untyped in NeDB's typings), as they are in
// @seald-io/nedb 4.1.2 (NEDB_VERSION, ./match.ts): the persistence's `persistNewStateAsync` (an append),
// `persistCachedDatabaseAsync` (a rewrite), `loadDatabaseAsync` and `treatRawStreamAsync` (the load; ./load.ts
// reads lines as the latter does), the executor's `pushAsync`, and the datastore's `insertAsync`, `updateAsync`,
// `removeAsync` and `ensureIndexAsync` (each replaced by one pushing the same internal `_insertAsync`,
// `_updateAsync` or `_removeAsync` into the executor). test/store/nedb-internals.test.ts fails when one changes.
interface NeDBInternals {
  executor: { pushAsync<T>(task: () => Promise<T>, forceQueuing?: boolean): Promise<T> }
  persistence: {
    filename: string
    inMemoryOnly: boolean
    corruptAlertThreshold: number
    loadDatabaseAsync(): Promise<void>
    treatRawStreamAsync(stream: NodeJS.ReadableStream): Promise<LoadedData>
    persistNewStateAsync(docs: unknown[]): Promise<void>
    persistCachedDatabaseAsync(): Promise<void>
  }
  _insertAsync(doc: unknown): Promise<unknown>
  _updateAsync(query: unknown, update: unknown, options: unknown): Promise<unknown>
  _removeAsync(query: unknown, options: unknown): Promise<unknown>
}

/**
 * Routes a datastore's appends through a commit log in `mode`. Each write method (insert, update, remove) still
 * runs its in-memory part in NeDB's one-at-a-time executor, but no longer holds the executor while its line goes
 * to disk: it leaves the line in the open batch and waits for that batch outside the executor, so the next
 * command proceeds and the lines of commands that ran meanwhile are written with it.
 */
export const useGroupCommit = (datastore: object, mode: StoreSync): GroupCommit | null => {
  const db = datastore as NeDBInternals
  const persistence = db.persistence
  if (persistence.inMemoryOnly) return null
  const commit = new GroupCommit(persistence.filename, mode)
  // Set by the append of the command running in the executor (one at a time), read right after it.
  let durable: Promise<void> | null = null

  persistence.persistNewStateAsync = async (docs: unknown[]) => {
    const text = GroupCommit.lines(docs)
    if (commit.mode === 'always') return commit.writeNow(text)
    durable = commit.enqueue(text)
  }
  const rewrite = persistence.persistCachedDatabaseAsync.bind(persistence)
  // NeDB rewrites the whole file at the end of every load (a compaction); here a load reads the file and writes
  // nothing — start-up reads a large collection once — and the file is compacted by the periodic compaction and at
  // close instead. A torn last line is cut first, since no rewrite removes it.
  const load = persistence.loadDatabaseAsync.bind(persistence)
  persistence.treatRawStreamAsync = (stream) => readDataLines(stream, persistence.corruptAlertThreshold)
  let loading = false
  persistence.loadDatabaseAsync = async () => {
    cutTornLine(persistence.filename)
    loading = true
    try {
      await load()
    } finally {
      loading = false
    }
  }
  persistence.persistCachedDatabaseAsync = async () => {
    if (loading) return
    await commit.drain()
    commit.release()
    await rewrite()
  }

  // Runs a write command in the executor and returns its result once its lines are written.
  const command = async <T>(run: () => Promise<T>): Promise<T> => {
    const [result, written] = await db.executor.pushAsync(async () => {
      durable = null
      const value = await run()
      const mine = durable
      durable = null
      return [value, mine] as const
    })
    if (written) await written
    return result
  }
  const target = datastore as Record<string, unknown>
  target.insertAsync = (doc: unknown) => command(() => db._insertAsync(doc))
  target.updateAsync = (query: unknown, update: unknown, options: unknown = {}) =>
    command(() => db._updateAsync(query, update, options))
  target.removeAsync = (query: unknown, options: unknown = {}) =>
    command(() => db._removeAsync(query, options))
  // Index declarations are appended through the executor too; wait for them as for every write.
  const ensureIndex = (
    datastore as { ensureIndexAsync(options: unknown): Promise<void> }
  ).ensureIndexAsync.bind(datastore)
  target.ensureIndexAsync = async (options: unknown) => {
    await ensureIndex(options)
    await commit.drain()
  }
  return commit
}
