// The audit log: appends chained events (src/audit/chain.ts) durably, verifies the chain and applies the
// retention period.
// - One writer order, two writers. Embedded engine: the entries of one event-loop turn are posted to the writer
//   thread (src/audit/writer.ts) as one batch, without waiting for earlier batches; the thread chains, writes and
//   syncs them in the order posted and holds the chain's tail, which it is sent (read from the store, once every
//   earlier batch is settled) after a start, a failure or a retention pass. MongoDB: one insertMany at a time, the
//   entries arriving meanwhile being the next batch. Either way `append` resolves once its events are durable (on
//   the embedded engine: in the data file and synced as STORE_SYNC says), which the recording hook awaits before
//   the response is sent: a kill -9 loses nothing that was answered.
// - Several instances on one MongoDB: `seq` has a unique index, so two writers can never both append after the
//   same predecessor; the loser (409) reloads the chain's tail, keeps those of its events that did get in, and
//   chains the rest after the new tail.
// - Retention (`audit.retentionDays`): a job removes the oldest events, in chain order, older than the period
//   (while no append is in flight: on the embedded engine it rewrites the file the writer thread appends to);
//   verify then starts from the oldest kept event, trusting its `prevHash` (the removed predecessor's hash).
import { Conflict } from '@feathersjs/errors'
import type { Application, Configuration } from '../declarations'
import { logger } from '../logger'
import { newId, type StoreService } from '../store'
import { auditWriter } from './writer'
import { chainEntries, GENESIS_HASH, hashEvent, type AuditEntry, type AuditEvent } from './chain'
import { runtimeOf } from '../runtime'
import { emitAuditEvents, stopAuditWatchers } from './watchers'
import { auditEventPath } from '../services/audit-events/audit-events.shared'

export type AuditSettings = Configuration['audit']

export const auditSettings = (app: Application): AuditSettings => app.get('audit')

interface Pending {
  entries: AuditEntry[]
  resolve(events: AuditEvent[]): void
  reject(error: unknown): void
}

export interface VerifyResult {
  intact: boolean
  checked: number
  brokenAt?: string
}

const PAGE = 1000
const MAX_RETRIES = 20

export class AuditLog {
  private tail: { seq: number; hash: string; at: number } | null = null
  private queue: Pending[] = []
  private writing = false
  // The appends being written, and the pause retention holds while it replaces the file.
  private readonly inFlight = new Set<Promise<unknown>>()
  private paused: Promise<void> | null = null
  // Writer thread (embedded engine): a batch is posted at the end of the event-loop turn its entries came in, without
  // waiting for the previous batch; the thread holds the chain's tail once it was sent one.
  private posting = false
  private threadHasTail = false
  private tailLoading: Promise<void> | null = null
  /** Store writes and events written since start (the bench reports the mean batch size). */
  readonly stats = { batches: 0, events: 0 }
  private timer: NodeJS.Timeout | null = null

  // The embedded engine's journal file the writer thread appends to (undefined on MongoDB), fixed with the store.
  private readonly journal: ReturnType<StoreService['journalFile']>

  constructor(
    readonly app: Application,
    readonly store: StoreService<AuditEvent>
  ) {
    this.journal = store.journalFile()
  }

  get settings() {
    return auditSettings(this.app)
  }

  /** Appends entries to the chain; resolves with the stored events once they are durable. */
  append(entries: AuditEntry[]): Promise<AuditEvent[]> {
    if (entries.length === 0) return Promise.resolve([])
    return new Promise((resolve, reject) => {
      this.queue.push({ entries, resolve, reject })
      if (this.journal) {
        if (!this.posting) {
          this.posting = true
          setImmediate(() => void this.post())
        }
      } else if (!this.writing) void this.drain()
    })
  }

  private track<T>(writing: Promise<T>) {
    this.inFlight.add(writing)
    const done = () => void this.inFlight.delete(writing)
    writing.then(done, done)
    return writing
  }

  private settle(batch: Pending[], stored: AuditEvent[]) {
    let offset = 0
    for (const pending of batch) {
      pending.resolve(stored.slice(offset, offset + pending.entries.length))
      offset += pending.entries.length
    }
    emitAuditEvents(this.app, auditEventPath, stored).catch((error) => logger.error('Emitting audit events failed:', error))
  }

  /** Resolves once no append is being written. */
  private async quiesce() {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight])
  }

  // Embedded engine: the entries of this event-loop turn go to the writer thread as one batch, after any batch
  // posted before (the thread writes them in order); durable when the thread answers.
  private async post() {
    for (;;) {
      // Retention may be replacing the file: nothing is posted meanwhile (checked again after every wait).
      while (this.paused) await this.paused
      if (this.threadHasTail) break
      // The thread starts without the tail (first append, after a failure or a retention pass): it is read from the
      // store once every earlier batch is written, and sent with the next batch.
      this.tailLoading ??= (async () => {
        await this.quiesce()
        this.tail = null
        await this.loadTail()
      })().finally(() => {
        this.tailLoading = null
      })
      try {
        await this.tailLoading
        if (!this.paused) break
      } catch (error) {
        const batch = this.queue
        this.queue = []
        this.posting = false
        for (const pending of batch) pending.reject(error)
        return
      }
    }
    this.posting = false
    const batch = this.queue
    this.queue = []
    if (batch.length === 0) return
    const journal = this.journal!
    const entries = batch.flatMap((pending) => pending.entries)
    const tail = this.threadHasTail ? undefined : this.tail!
    this.threadHasTail = true
    try {
      const stored = await this.track(auditWriter.append(journal.filename, journal.sync, tail, entries, entries.map(() => newId())))
      this.stats.batches += 1
      this.stats.events += stored.length
      this.settle(batch, stored)
    } catch (error) {
      // The thread's tail is unknown (it may have stopped): the next batch sends one read from the store.
      this.threadHasTail = false
      for (const pending of batch) pending.reject(error)
    }
  }

  // MongoDB: one store write at a time; the entries that arrive meanwhile are the next batch.
  private async drain() {
    this.writing = true
    try {
      while (this.queue.length > 0) {
        while (this.paused) await this.paused
        const batch = this.queue
        this.queue = []
        try {
          this.settle(batch, await this.track(this.write(batch.flatMap((pending) => pending.entries))))
        } catch (error) {
          // The chain's tail is unknown after a failed write: reload it before the next batch.
          this.tail = null
          for (const pending of batch) pending.reject(error)
        }
      }
    } finally {
      this.writing = false
    }
  }

  /** Runs `task` while no append is in flight or starts (the journal file may be replaced meanwhile). */
  private async exclusively<T>(task: () => Promise<T>): Promise<T> {
    while (this.paused) await this.paused
    let done!: () => void
    this.paused = new Promise<void>((resolve) => (done = resolve))
    try {
      await this.quiesce()
      return await task()
    } finally {
      this.paused = null
      done()
    }
  }

  private async loadTail() {
    const [last] = (await this.store._find({ query: { $sort: { seq: -1 }, $limit: 1 }, paginate: false })) as AuditEvent[]
    this.tail = last ? { seq: last.seq, hash: last.hash, at: last.at } : { seq: 0, hash: GENESIS_HASH, at: 0 }
  }

  private chain(entries: AuditEntry[]) {
    if (!this.tail) throw new Error('audit chain tail not loaded')
    return chainEntries(this.tail, entries)
  }

  private async write(entries: AuditEntry[]): Promise<AuditEvent[]> {
    let remaining = entries
    const stored: AuditEvent[] = []
    for (let attempt = 0; ; attempt++) {
      if (!this.tail) await this.loadTail()
      const docs = this.chain(remaining)
      try {
        const created = (await this.store._create(docs)) as unknown as AuditEvent[]
        this.stats.batches += 1
        this.stats.events += docs.length
        this.tail = { seq: docs[docs.length - 1].seq, hash: docs[docs.length - 1].hash, at: docs[docs.length - 1].at }
        return [...stored, ...created]
      } catch (error) {
        if (!(error instanceof Conflict) || attempt >= MAX_RETRIES) throw error
        // Another writer took some of these `seq`s. Events of ours that did get in (MongoDB inserts in order
        // up to the first duplicate) are recognised by their hash; the rest is chained after the new tail.
        const ours = (await this.store._find({ query: { seq: { $in: docs.map((doc) => doc.seq) } }, paginate: false })) as AuditEvent[]
        const inserted = new Set(ours.filter((event) => docs.some((doc) => doc.seq === event.seq && doc.hash === event.hash)).map((event) => event.hash))
        stored.push(...ours.filter((event) => inserted.has(event.hash)))
        remaining = remaining.filter((_entry, index) => !inserted.has(docs[index].hash))
        this.tail = null
        if (remaining.length === 0) return stored
      }
    }
  }

  /** Walks the chain in `seq` order from the oldest kept event. */
  async verify(): Promise<VerifyResult> {
    let checked = 0
    let previous: AuditEvent | null = null
    for (;;) {
      const query: Record<string, unknown> = { $sort: { seq: 1 }, $limit: PAGE }
      if (previous) query.seq = { $gt: previous.seq }
      const page = (await this.store._find({ query, paginate: false })) as AuditEvent[]
      for (const event of page) {
        const linked = previous === null || (event.prevHash === previous.hash && event.seq === previous.seq + 1)
        if (!linked || typeof event.hash !== 'string' || hashEvent(event as unknown as Record<string, unknown>) !== event.hash) {
          return { intact: false, brokenAt: event.id, checked }
        }
        checked += 1
        previous = event
      }
      if (page.length < PAGE) return { intact: true, checked }
    }
  }

  /** Removes the oldest events older than the retention period, in chain order; resolves with how many. */
  async applyRetention(now = Date.now()): Promise<number> {
    const cutoff = now - this.settings.retentionDays * 86400000
    // The chain is cut before its first event inside the period, so what is kept stays one unbroken chain.
    const [firstKept] = (await this.store._find({ query: { at: { $gte: cutoff }, $sort: { seq: 1 }, $limit: 1 }, paginate: false })) as AuditEvent[]
    const query = firstKept ? { seq: { $lt: firstKept.seq } } : { at: { $lt: cutoff } }
    // On the embedded engine the removal rewrites the journal file: the writer thread lets go of it first.
    const removed = await this.exclusively(async () => {
      const journal = this.journal
      if (journal) {
        await auditWriter.release(journal.filename)
        this.threadHasTail = false
      }
      return this.store._remove(null, { query, adapter: { multi: true } })
    })
    return Array.isArray(removed) ? removed.length : 0
  }

  start() {
    if (this.timer) return
    const run = () => this.applyRetention().catch((error) => logger.error('Audit retention failed:', error))
    this.timer = setInterval(run, this.settings.retentionIntervalMs)
    this.timer.unref?.()
    void run()
  }

  /** Stops the retention job and waits for queued appends. */
  async stop() {
    stopAuditWatchers(this.app)
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    while (this.writing || this.posting || this.queue.length > 0 || this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 5))
    const journal = this.journal
    if (journal) {
      await auditWriter.release(journal.filename)
      this.threadHasTail = false
    }
  }
}

// The log is a runtime object kept on the app (set where the audit-events service is registered).
export const auditLog = (app: Application): AuditLog | undefined => runtimeOf(app).auditLog
