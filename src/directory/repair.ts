// Entries stay in step by themselves, crashes and failures included.
// - Subscribers of the app's write events (subscribed when the directory service registers): before a write to a
//   service that feeds the directory (a source such as organizations, or a trigger such as the catalogue),
//   `record.changing` writes a *pending* record naming the entries the write may alter (the document's as it is
//   before the write; for a create, whose document is not known yet, "all of the sources it feeds") and notes it
//   for the write's other events. On `record.changed`, those entries and the ones the written documents alter are
//   rebuilt, and the record is removed; a change announced outside a call (no pending record) is recorded and
//   rebuilt the same way. A rebuild that fails does not fail the write (it succeeded and is answered): it is
//   retried shortly (0.1 s, 0.5 s, 1 s, 3 s, 10 s, 30 s) and its record stays until it succeeds. On `record.failed`
//   the entries known beforehand are rebuilt (nothing or part of the write may have happened).
// - At start-up (once the index is loaded) and every minute, the records left behind — by a process that died
//   between a source write and its entries' rebuild, or by rebuilds that kept failing — are repaired from the
//   sources: the named entries are rebuilt, and an "all of this source" record rebuilds every entry of that kind
//   (every document of the source, and every entry whose document is gone).
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import type { FailedChange, PendingChange, RecordChange } from '../events'
import type { StoreService } from '../store'
import { faultPoint } from '../billing/fault'
import { appSlot } from '../runtime'
import { messageOf, type Directory } from './entries'
import type { EntrySource } from './sources'

export interface PendingRecord {
  id: string
  /** Entries to rebuild: `<kind>:<source document id>`. */
  keys: string[]
  /** Kinds to rebuild entirely (a document was created: it was not known before the write). */
  kinds: string[]
  /** Epoch ms the write started. */
  at: number
}

const WRITES: readonly string[] = ['create', 'update', 'patch', 'remove']
const RETRY_DELAYS_MS = [100, 500, 1000, 3000, 10000, 30000]
/** How often leftover records are looked for, and how old they must be (younger ones belong to writes in flight). */
const REPAIR_INTERVAL_MS = 60_000
/** Where a write's pending record is noted between its events. */
const NOTE = 'directory.pending'

const keyOf = (source: EntrySource, id: string) => `${source.kind}:${id}`

/** A write about to happen, as both the event subscriber and the hook for older services see it. */
interface Write {
  path: string
  method: string
  id: PendingChange['id'] | undefined
  /** A create's body (known to the hook only). */
  data?: unknown
}

export class DirectoryRepair {
  private readonly timers = new Set<NodeJS.Timeout>()
  private stopped = false
  /** The start-up repair (resolves when done). */
  private startup?: Promise<void>
  /** When this app's store was set up: records from before it were left by an earlier process. */
  private readonly since: number

  constructor(
    private readonly deps: Deps,
    readonly directory: Directory,
    private readonly store: StoreService<PendingRecord>
  ) {
    this.since = Date.now()
  }

  private splitKey(key: string): [EntrySource, string] | null {
    const at = key.indexOf(':')
    const source = this.directory.sourceByKind(key.slice(0, at))
    return source && at > 0 ? [source, key.slice(at + 1)] : null
  }

  /** Whether a write to `path` by `method` may alter entries. */
  watches(path: string, method: string) {
    return WRITES.includes(method) && this.directory.watchedPaths().has(path)
  }

  /** What a write may alter, known before it runs: the entries of the document as it is now, or whole kinds. */
  private async beforeWrite(write: Write): Promise<{ keys: string[]; kinds: string[] }> {
    const keys = new Set<string>()
    const kinds = new Set<string>()
    const add = (doc: unknown) => {
      for (const [source, id] of this.directory.affectedBy(write.path, doc)) keys.add(keyOf(source, id))
    }
    const feeds = (source: EntrySource) =>
      source.path === write.path || (source.triggers ?? []).some((t) => t.path === write.path)
    if (write.method === 'create') {
      if (write.data !== undefined) {
        const items = Array.isArray(write.data) ? write.data : [write.data]
        for (const item of items) add({ ...(item as object), id: undefined })
        for (const source of this.directory.sources) if (source.path === write.path) kinds.add(source.kind)
      } else {
        // The body is not known here: every source the created document may feed.
        for (const source of this.directory.sources) if (feeds(source)) kinds.add(source.kind)
      }
    } else if (write.id === null || write.id === undefined) {
      // A multi write: which documents it reaches is not known before.
      for (const source of this.directory.sources) if (feeds(source)) kinds.add(source.kind)
    } else {
      const reader = this.readerOf(write.path)
      const doc = reader ? await reader._get(write.id).catch(() => null) : null
      add(doc ?? { id: String(write.id) })
    }
    return { keys: [...keys], kinds: [...kinds] }
  }

  /** The store of a watched service (a source's or a trigger's). */
  private readerOf(path: string) {
    for (const source of this.directory.sources) {
      if (source.path === path) return source.read(this.deps.stores)
      const trigger = (source.triggers ?? []).find((one) => one.path === path)
      if (trigger) return trigger.read(this.deps.stores)
    }
    return null
  }

  /** Rebuilds the entries of `keys`; the keys that failed. */
  private async rebuildKeys(keys: string[]) {
    const failed: string[] = []
    for (const key of keys) {
      const parsed = this.splitKey(key)
      if (!parsed) continue
      try {
        await this.directory.rebuildEntry(parsed[0], parsed[1])
      } catch (error) {
        this.deps.logger.error(`Directory entry ${key} could not be rebuilt (will retry):`, messageOf(error))
        failed.push(key)
      }
    }
    return failed
  }

  /** Every entry of `kind`: each document of its source, and each indexed entry whose document is gone. */
  private async rebuildKind(kind: string) {
    const source = this.directory.sourceByKind(kind)
    if (!source) return []
    const docs = await source.read(this.deps.stores)._find({ query: { $select: ['id'] }, paginate: false })
    const keys = new Set(docs.map((doc) => keyOf(source, String(doc.id))))
    for (const key of (await this.directory.loadedIndex()).keysOfType(kind)) keys.add(key)
    return this.rebuildKeys([...keys])
  }

  /** Rebuilds what a record names; true when everything was rebuilt (the record can go). */
  private async settle(record: Pick<PendingRecord, 'keys' | 'kinds'>) {
    let failed = await this.rebuildKeys(record.keys)
    for (const kind of record.kinds) {
      try {
        failed = failed.concat(await this.rebuildKind(kind))
      } catch (error) {
        this.deps.logger.error(
          `Directory entries of ${kind} could not be repaired (will retry):`,
          messageOf(error)
        )
        failed.push(kind)
      }
    }
    return failed.length === 0
  }

  private async removeRecord(id: string) {
    await this.store._remove(id).catch((error: unknown) => {
      if ((error as { code?: unknown } | null)?.code !== 404)
        this.deps.logger.error('Directory pending record could not be removed:', messageOf(error))
    })
  }

  /** Settles a record now, and again later (with growing delays) until it is settled. Never throws. */
  private async settleWithRetries(record: PendingRecord, attempt = 0): Promise<void> {
    if (this.stopped) return
    const done = await this.settle(record).catch(() => false)
    if (done) return this.removeRecord(record.id)
    const delay = RETRY_DELAYS_MS[attempt]
    // After the last retry the record stays for the periodic repair (and the next start-up).
    if (delay === undefined) return
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      void this.settleWithRetries(record, attempt + 1)
    }, delay)
    timer.unref()
    this.timers.add(timer)
  }

  /** Before a write: the pending record of what it may alter (durable before the write runs). */
  async pending(write: Write): Promise<PendingRecord> {
    const before = await this.beforeWrite(write)
    return this.store._create({ ...before, at: Date.now() })
  }

  /** After a write: rebuilds what it altered (the record's entries and the written documents'), then drops the record. */
  async written(write: Write, record: PendingRecord | null, docs: readonly unknown[]) {
    faultPoint(`directory-source-written:${write.path}:${write.method}`)
    const keys = new Set(record?.keys ?? [])
    for (const doc of docs)
      for (const [source, id] of this.directory.affectedBy(write.path, doc)) keys.add(keyOf(source, id))
    // What the write altered is known now: the record names it (no kind-wide rebuild needed).
    const settled = record ?? (await this.store._create({ keys: [...keys], kinds: [], at: Date.now() }))
    await this.settleWithRetries({ ...settled, keys: [...keys], kinds: [] })
  }

  /**
   * The write failed (nothing or, if a later step failed, the document was written): the entries known beforehand
   * are rebuilt; a create that failed wrote nothing of a source, while a create whose body was not known keeps the
   * kinds of the trigger it wrote to.
   */
  failed(write: Write, record: PendingRecord) {
    const kinds =
      write.method === 'create' && write.data === undefined
        ? record.kinds.filter((kind) => this.directory.sourceByKind(kind)?.path !== write.path)
        : []
    void this.settleWithRetries({ ...record, kinds })
  }

  /** Subscribes the directory's upkeep to the app's write events (and changes announced outside a call). */
  subscribe() {
    const { events } = this.deps
    events.on('record.changing', async (change: PendingChange) => {
      if (!this.watches(change.path, change.method)) return
      change.notes.set(NOTE, await this.pending(change))
    })
    events.on('record.changed', async (change: RecordChange) => {
      if (!this.watches(change.path, change.method)) return
      const record = (change.notes.get(NOTE) as PendingRecord | undefined) ?? null
      await this.written(change, record, change.docs)
    })
    events.on('record.failed', (change: FailedChange) => {
      const record = change.notes.get(NOTE) as PendingRecord | undefined
      if (record) this.failed(change, record)
    })
  }

  /** Repairs every record written before `before` (epoch ms). */
  async repairPending(before: number) {
    const records = (await this.store._find({
      query: { at: { $lt: before } },
      paginate: false
    })) as PendingRecord[]
    if (records.length === 0) return
    this.deps.logger.info(`Directory: repairing ${records.length} pending change(s) from their sources`)
    const keys = [...new Set(records.flatMap((r) => r.keys))]
    const kinds = [...new Set(records.flatMap((r) => r.kinds))]
    if (await this.settle({ keys, kinds })) for (const record of records) await this.removeRecord(record.id)
  }

  /**
   * Start-up (in the background once the server is up, or at the first search): load the index, repair the
   * leftover records, then look for leftovers every minute. Idempotent; searches wait for it, so they never answer
   * from an index that misses a repair.
   */
  start(): Promise<void> {
    if (this.startup) return this.startup
    if (this.stopped) return Promise.resolve()
    this.startup = (async () => {
      await this.directory.loadedIndex()
      // Only what earlier processes left: a record of this process's own write in flight is settled by that write
      // (repairing it now would rebuild the entry from the document as it was before the write, then drop the record).
      await this.repairPending(this.since)
    })().catch((error: unknown) =>
      this.deps.logger.error('Directory start-up repair failed:', messageOf(error))
    )
    const timer = setInterval(() => {
      this.repairPending(Date.now() - REPAIR_INTERVAL_MS).catch((error: unknown) =>
        this.deps.logger.error('Directory repair failed:', messageOf(error))
      )
    }, REPAIR_INTERVAL_MS)
    timer.unref()
    this.timers.add(timer)
    return this.startup
  }

  /** Teardown: no more retries or repairs; waits for the start-up repair. */
  async stop() {
    this.stopped = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    await this.startup
  }
}

/** The app's directory and its repair (created when the directory service registers). */
export const directorySlot = appSlot<DirectoryRepair>('directory')

/** The app's directory (its sources, store, index and rebuilds). */
export const directoryOf = (app: Application): Directory => directorySlot.require(app).directory

/** The start-up job's start (src/ops/jobs.ts): see `DirectoryRepair.start`. */
export const startDirectoryRepair = (app: Application): Promise<void> =>
  directorySlot.get(app)?.start() ?? Promise.resolve()

/** The start-up job's stop: no more retries or repairs. */
export const stopDirectoryRepair = async (app: Application) => {
  await directorySlot.get(app)?.stop()
}
