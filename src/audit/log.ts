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
// - Retention (`audit.retentionDays`): a job (one instance at a time) removes the oldest events, in chain order,
//   older than the period (while no append is in flight: on the embedded engine it rewrites the file the writer
//   thread appends to). Before removing, it appends a `retention` event recording the floor: the lowest `seq` kept.
// - Verify walks the chain in `seq` order: an event whose hash does not check, or that does not link to the one
//   before it, breaks the chain (`brokenAt`); a `seq` absent above the latest recorded floor is `missing` (a
//   deletion, or a truncation of the oldest events); events below the floor were removed by retention. The answer
//   carries the head (last `seq` and `hash`); given a head an outside witness kept, it says whether the log still
//   holds it unchanged, so a truncated tail shows as missing.
// - Anchors (`audit.anchorIntervalMs`): once per interval across all instances, when something was appended since
//   the last anchor, an `anchor` event is appended and the resulting head is delivered to the `audit.anchor`
//   webhooks (src/audit/anchors.ts), whose receivers are the outside witnesses.
// - The audit settings in force are recorded at start (`audit-config`) whenever they differ from those recorded last.
import { Conflict } from '@feathersjs/errors'
import type { Application, Configuration } from '../declarations'
import type { Deps } from '../deps'
import { newId, type StoreService } from '../store'
import { auditWriter } from './writer'
import {
  chainEntries,
  GENESIS_HASH,
  hashEvent,
  type AuditEntry,
  type AuditEvent,
  type ChangeFields
} from './chain'
import { deliverAnchor, type ChainHead } from './anchors'
import { claimPeriod, withLease } from '../cluster/lease'
import { appSlot } from '../runtime'
import { stopAuditWatchers } from './watchers'
import { auditEventPath } from '../services/audit-events/audit-events.shared'

export type AuditSettings = Configuration['audit']

/** What the log uses: its settings, the clock, the logger, and the stores the anchors are delivered through. */
export type AuditLogDeps = Pick<Deps, 'settings' | 'clock' | 'logger' | 'stores' | 'events'>

/** Hands appended events on (the admins watching the trail live, src/audit/watchers.ts). */
export type AppendedListener = (events: AuditEvent[]) => Promise<void>

interface Pending {
  entries: AuditEntry[]
  /** Whether the caller wants the stored events back (else it is answered with none once they are durable). */
  events: boolean
  resolve(events: AuditEvent[]): void
  reject(error: unknown): void
}

/** A head an outside witness kept (an anchor it received), checked by verify. */
export interface Witnessed {
  seq: number
  hash: string
}

export type WitnessStatus = 'present' | 'altered' | 'missing' | 'removed-by-retention'

export interface VerifyResult {
  intact: boolean
  /** The stored events walked. */
  checked: number
  /** The last stored event (null: the log is empty). */
  head: ChainHead | null
  /** The lowest `seq` the log must hold: 1, or the floor the latest retention pass recorded. */
  floor: number
  /** The first event that does not check (edited, inserted or reordered). */
  brokenAt?: string
  /** `seq`s absent at or above the floor (the first MAX_MISSING of them), and how many there are. */
  missing?: number[]
  missingCount?: number
  /** Whether the log holds the witnessed head unchanged. */
  witness?: Witnessed & { status: WitnessStatus }
}

const PAGE = 1000
const MAX_RETRIES = 20
const MAX_MISSING = 1000
// How long one instance holds the retention and configuration leases (renewed while the work runs).
const LEASE_MS = 60_000

/** An entry of the log's own (the audit-events service), not of a call. */
const ownEntry = (
  at: number,
  action: 'retention' | 'anchor' | 'audit-config',
  fields: { before?: ChangeFields; after?: ChangeFields } = {}
): AuditEntry => ({
  at,
  actor: null,
  action,
  service: auditEventPath,
  ids: [],
  outcome: 'allowed',
  status: 200,
  ...fields
})

const sameFields = (a: ChangeFields | undefined, b: ChangeFields) =>
  !!a && JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort())

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
  private anchorTimer: NodeJS.Timeout | null = null
  // The log's own tasks running (retention, anchor, configuration record): a stop waits for them.
  private readonly background = new Set<Promise<unknown>>()

  // The embedded engine's journal file the writer thread appends to (undefined on MongoDB), fixed with the store.
  private readonly journal: ReturnType<StoreService['journalFile']>

  /**
   * `app` holds the cluster's leases (one instance at a time for retention, anchors and the configuration record)
   * and the watchers' state; `store` is the audit-events collection; `appended` hears every stored event.
   */
  constructor(
    readonly app: Application,
    readonly deps: AuditLogDeps,
    readonly store: StoreService<AuditEvent>,
    private readonly appended: AppendedListener = async () => undefined,
    /** Whether `appended` wants the events now (nobody watching: the writer thread need not send them back). */
    private readonly listening: () => boolean = () => true
  ) {
    this.journal = store.journalFile()
  }

  get settings(): AuditSettings {
    return this.deps.settings.get('audit')
  }

  /** The time an entry recorded now carries. */
  now() {
    return this.deps.clock.now()
  }

  /**
   * Appends entries to the chain; resolves once they are durable, with the stored events — or none when
   * `{ events: false }` says the caller does not use them (the realtime deliveries: on the embedded engine the writer
   * thread then sends nothing back unless someone watches the trail live).
   */
  append(entries: AuditEntry[], options: { events?: boolean } = {}): Promise<AuditEvent[]> {
    if (entries.length === 0) return Promise.resolve([])
    return new Promise((resolve, reject) => {
      this.queue.push({ entries, events: options.events !== false, resolve, reject })
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
    this.appended(stored).catch((error) => this.deps.logger.error('Emitting audit events failed:', error))
  }

  /** Resolves once no append is being written. */
  private async quiesce() {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight])
  }

  // Embedded engine: the entries of this event-loop turn go to the writer thread as one batch, after the batches
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
    // The events come back from the thread only when someone uses them (a structured copy of each is not free).
    const wanted = batch.some((pending) => pending.events) || this.listening()
    try {
      const stored = await this.track(
        auditWriter.append(
          journal.filename,
          journal.sync,
          tail,
          entries,
          entries.map(() => newId()),
          wanted
        )
      )
      this.stats.batches += 1
      this.stats.events += entries.length
      if (stored) this.settle(batch, stored)
      else for (const pending of batch) pending.resolve([])
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
    const [last] = (await this.store._find({
      query: { $sort: { seq: -1 }, $limit: 1 },
      paginate: false
    })) as AuditEvent[]
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
        this.tail = {
          seq: docs[docs.length - 1].seq,
          hash: docs[docs.length - 1].hash,
          at: docs[docs.length - 1].at
        }
        return [...stored, ...created]
      } catch (error) {
        if (!(error instanceof Conflict) || attempt >= MAX_RETRIES) throw error
        // Another writer took some of these `seq`s. Events of ours that did get in (MongoDB inserts in order
        // up to the first duplicate) are recognised by their hash; the rest is chained after the new tail.
        const ours = (await this.store._find({
          query: { seq: { $in: docs.map((doc) => doc.seq) } },
          paginate: false
        })) as AuditEvent[]
        const inserted = new Set(
          ours
            .filter((event) => docs.some((doc) => doc.seq === event.seq && doc.hash === event.hash))
            .map((event) => event.hash)
        )
        stored.push(...ours.filter((event) => inserted.has(event.hash)))
        remaining = remaining.filter((_entry, index) => !inserted.has(docs[index].hash))
        this.tail = null
        if (remaining.length === 0) return stored
      }
    }
  }

  /**
   * Walks the chain in `seq` order: the first event that does not check (`brokenAt`), the `seq`s missing above the
   * retention floor, the head; with `witnessed`, whether the log still holds that event unchanged.
   */
  async verify(witnessed?: Witnessed): Promise<VerifyResult> {
    let checked = 0
    let previous: AuditEvent | null = null
    let brokenAt: string | undefined
    let floor = 1
    const gaps: [number, number][] = []
    for (;;) {
      const query: Record<string, unknown> = { $sort: { seq: 1 }, $limit: PAGE }
      if (previous) query.seq = { $gt: previous.seq }
      const page = (await this.store._find({ query, paginate: false })) as AuditEvent[]
      for (const event of page) {
        const sound =
          typeof event.hash === 'string' &&
          hashEvent(event as unknown as Record<string, unknown>) === event.hash
        // Linked: follows its predecessor (or, the very first event, the genesis); after a gap it cannot be checked.
        const linked =
          previous === null || event.seq !== previous.seq + 1
            ? event.seq !== 1 || event.prevHash === GENESIS_HASH
            : event.prevHash === previous.hash
        if (!(sound && linked)) brokenAt ??= event.id
        const expected = previous === null ? 1 : previous.seq + 1
        if (event.seq > expected) gaps.push([expected, event.seq - 1])
        // What retention removed legitimately: below the floor its (checked) event recorded.
        const recorded = event.after?.floor
        if (sound && event.action === 'retention' && typeof recorded === 'number')
          floor = Math.max(floor, recorded)
        checked += 1
        previous = event
      }
      if (page.length < PAGE) break
    }
    const head: ChainHead | null = previous
      ? { seq: previous.seq, hash: previous.hash, at: previous.at }
      : null
    let witness: VerifyResult['witness']
    if (witnessed) {
      const [stored] = (await this.store._find({
        query: { seq: witnessed.seq, $limit: 1 },
        paginate: false
      })) as AuditEvent[]
      const status: WitnessStatus = stored
        ? stored.hash === witnessed.hash
          ? 'present'
          : 'altered'
        : witnessed.seq < floor
          ? 'removed-by-retention'
          : 'missing'
      witness = { seq: witnessed.seq, hash: witnessed.hash, status }
      // A witnessed head beyond the stored one: the tail up to it was cut off.
      if (status === 'missing' && witnessed.seq > (head?.seq ?? 0))
        gaps.push([(head?.seq ?? 0) + 1, witnessed.seq])
    }
    const missing: number[] = []
    let missingCount = 0
    for (const [from, to] of gaps) {
      const first = Math.max(from, floor)
      if (first > to) continue
      missingCount += to - first + 1
      for (let seq = first; seq <= to && missing.length < MAX_MISSING; seq++) missing.push(seq)
    }
    const intact =
      !brokenAt &&
      missingCount === 0 &&
      (!witness || witness.status === 'present' || witness.status === 'removed-by-retention')
    return {
      intact,
      checked,
      head,
      floor,
      ...(brokenAt ? { brokenAt } : {}),
      ...(missingCount > 0 ? { missing, missingCount } : {}),
      ...(witness ? { witness } : {})
    }
  }

  /**
   * Removes the oldest events older than the retention period, in chain order; resolves with how many. The floor
   * (the lowest `seq` kept) is recorded first, in a `retention` event, so verify knows the removed `seq`s are no gap.
   */
  async applyRetention(now = this.now()): Promise<number> {
    const retentionDays = this.settings.retentionDays
    const cutoff = now - retentionDays * 86400000
    const [oldest] = (await this.store._find({
      query: { $sort: { seq: 1 }, $limit: 1 },
      paginate: false
    })) as AuditEvent[]
    if (!oldest || oldest.at >= cutoff) return 0
    // The chain is cut before its first event inside the period, so what is kept stays one unbroken chain; with
    // none inside it, after the last event (everything appended from now on is kept).
    const [firstKept] = (await this.store._find({
      query: { at: { $gte: cutoff }, $sort: { seq: 1 }, $limit: 1 },
      paginate: false
    })) as AuditEvent[]
    const [last] = firstKept
      ? []
      : ((await this.store._find({
          query: { $sort: { seq: -1 }, $limit: 1 },
          paginate: false
        })) as AuditEvent[])
    const floor = firstKept ? firstKept.seq : last.seq + 1
    await this.append([ownEntry(now, 'retention', { after: { floor, retentionDays } })])
    // On the embedded engine the removal rewrites the journal file: the writer thread lets go of it first.
    const removed = await this.exclusively(async () => {
      const journal = this.journal
      if (journal) {
        await auditWriter.release(journal.filename)
        this.threadHasTail = false
      }
      return this.store._remove(null, { query: { seq: { $lt: floor } }, adapter: { multi: true } })
    })
    return Array.isArray(removed) ? removed.length : 0
  }

  /**
   * Appends an `anchor` event, when anything was appended since the last one, and hands the resulting head to the
   * `audit.anchor` webhooks; resolves with the anchored head (null: nothing new).
   */
  async anchor(): Promise<ChainHead | null> {
    const [last] = (await this.store._find({
      query: { $sort: { seq: -1 }, $limit: 1 },
      paginate: false
    })) as AuditEvent[]
    if (!last || last.action === 'anchor') return null
    const [event] = await this.append([ownEntry(this.now(), 'anchor')])
    const head = { seq: event.seq, hash: event.hash, at: event.at }
    await deliverAnchor(this.deps, head)
    return head
  }

  /** Records the audit settings in force (`audit-config`) when they differ from those recorded last. */
  async recordConfiguration(): Promise<boolean> {
    const { enabled, retentionDays, anchorIntervalMs } = this.settings
    const current: ChangeFields = { enabled, retentionDays, anchorIntervalMs }
    const [last] = (await this.store._find({
      query: { action: 'audit-config', $sort: { seq: -1 }, $limit: 1 },
      paginate: false
    })) as AuditEvent[]
    if (last && sameFields(last.after, current)) return false
    await this.append([
      ownEntry(this.now(), 'audit-config', { ...(last?.after ? { before: last.after } : {}), after: current })
    ])
    return true
  }

  // Runs one of the log's own tasks, logging its failure; a stop waits for it.
  private runInBackground(what: string, task: () => Promise<unknown>) {
    const running = task().catch((error) => this.deps.logger.error(`Audit ${what} failed:`, error))
    this.background.add(running)
    void running.finally(() => this.background.delete(running))
  }

  /** Starts the retention job (at once, then every `retentionIntervalMs`), the anchors, and records the settings. */
  start() {
    if (this.timer) return
    // One instance at a time; another holding the lease is doing it.
    const retention = () =>
      this.runInBackground('retention', () =>
        withLease(this.app, 'audit-retention', LEASE_MS, () => this.applyRetention())
      )
    this.timer = setInterval(retention, this.settings.retentionIntervalMs)
    this.timer.unref?.()
    retention()
    // Once per interval across the instances: the first to claim the period anchors (the claim lapses a little
    // before the next tick, so a late tick of the same instance can claim it again).
    const period = this.settings.anchorIntervalMs
    const anchor = () =>
      this.runInBackground('anchor', async () => {
        if (await claimPeriod(this.app, 'audit-anchor', period * 0.9)) await this.anchor()
      })
    this.anchorTimer = setInterval(anchor, period)
    this.anchorTimer.unref?.()
    this.runInBackground('configuration record', () =>
      withLease(this.app, 'audit-config', LEASE_MS, () => this.recordConfiguration())
    )
  }

  /** Stops the retention and anchor jobs and waits for them and for queued appends. */
  async stop() {
    stopAuditWatchers(this.app)
    if (this.timer) clearInterval(this.timer)
    if (this.anchorTimer) clearInterval(this.anchorTimer)
    this.timer = null
    this.anchorTimer = null
    while (this.background.size > 0) await Promise.allSettled([...this.background])
    while (this.writing || this.posting || this.queue.length > 0 || this.inFlight.size > 0)
      await new Promise((resolve) => setTimeout(resolve, 5))
    const journal = this.journal
    if (journal) {
      await auditWriter.release(journal.filename)
      this.threadHasTail = false
    }
  }
}

// The log is per-app state (set where the audit-events service is registered).
export const auditLogSlot = appSlot<AuditLog>('audit log')
export const auditLog = (app: Application): AuditLog | undefined => auditLogSlot.get(app)
