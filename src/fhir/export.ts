// Bulk export of one facility (FHIR Bulk Data Access, `Group/<facility>/$export`) as a durable job:
// 1. kick-off stores a job document (`queued`) and nothing else;
// 2. a worker claims it with a lease — an atomic conditional patch that succeeds only while the job is queued or
//    its last holder's lease has expired — so two instances never run one job at once; the lease is renewed while
//    the job runs, and a crashed holder's job is taken over once its lease expires (on the embedded engine one
//    process owns the data: at start-up every `running` job is an interrupted one);
// 3. each run starts from scratch (the job's folder emptied) and streams the facility's stored documents in pages
//    of `exportPageSize` (keyset paging on `id`, never everything in memory) through the mapping into one NDJSON
//    file per resource type, each written under a temporary name and renamed once complete; the lease is renewed
//    after every page, which is also where a cancel is seen;
// 4. only when every file is complete does the job become `complete` with its output (the manifest is built from
//    that), conditional on the lease still being this worker's: a half manifest is never visible; after
//    `exportMaxAttempts` interrupted runs the job is `failed` with its reason, files removed;
// 5. one audit event records the export with the counts by type; a cancelled job stops at its next page and its
//    files are removed; expired jobs (`exportTtlMs` after completion) are removed with their files by the pass.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import type { Deps } from '../deps'
import type { StoreOptions, StoreService, Stored } from '../store'
import { errorCode } from '../billing/store-calls'
import { faultPoint } from '../billing/fault'
import { exportSources, type ExportFilter } from './sources'
import type { FhirResource } from './mapping'

export type ExportStatus = 'queued' | 'running' | 'complete' | 'failed' | 'cancelled'

export interface ExportOutput {
  type: string
  /** The file's name in the job's folder (`<type>.ndjson`). */
  file: string
  count: number
}

/** One bulk export, as stored. */
export interface ExportJob {
  id: string
  facility: string
  /** The account that kicked it off (it and the facility's superadmins may read its status and files). */
  requestedBy: string
  /** The requested resource types (empty: every supported type). */
  types: string[]
  /** `_since`: only resources changed at or after this time (ms). */
  since?: number
  /** The kick-off URL, as the manifest's `request` repeats it. */
  request: string
  /** The origin the file URLs of the manifest are built on. */
  base: string
  status: ExportStatus
  createdAt: number
  /** When the run that completed started: the manifest's `transactionTime`. */
  transactionTime?: number
  attempts: number
  leaseOwner?: string
  leaseUntil: number
  /** Resources written so far by the current run (X-Progress). */
  progress?: number
  output?: ExportOutput[]
  error?: string
  completedAt?: number
  /** Files and job are removed after this time (complete, failed or cancelled jobs). */
  expiresAt?: number
  ip?: string
  userAgent?: string
}

export type ExportStore = StoreService<Stored<ExportJob>>

export const exportStoreOptions: StoreOptions = {
  name: 'fhir-exports',
  paginate: false,
  multi: true,
  indexes: [{ fields: { status: 1, leaseUntil: 1 } }, { fields: { expiresAt: 1 } }]
}

/** What the worker needs besides the stores and settings. */
export interface ExportWorkerOptions {
  store: ExportStore
  /** The folder holding each job's folder (DATA_DIR/fhir-exports). */
  root: string
  /** The identifier system base of the mapping. */
  systemBase: () => string
  /** Records the one audit event of a completed export. */
  audit(job: Stored<ExportJob>, counts: Record<string, number>): Promise<void>
  /** Several instances may share the store (MongoDB): leases of other processes are then respected at start-up. */
  shared: boolean
}

/** A job's folder; `jobId` is a stored id (hex), never a client's path segment unchecked. */
export const jobFolder = (root: string, jobId: string) => path.join(root, jobId)

/** Has the job expired (its files gone for clients) at `now`? */
export const expired = (job: ExportJob, now: number) => job.expiresAt !== undefined && job.expiresAt <= now

class Interrupted extends Error {}

type Settings = Deps['settings']

const fhirSettings = (settings: Settings) => settings.get('fhir')

/** A file being written: the temporary name until complete. */
interface OpenFile {
  type: string
  stream: fs.WriteStream
  count: number
  error?: Error
}

export class FhirExportWorker {
  private readonly id = randomBytes(8).toString('hex')
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> = Promise.resolve()
  private stopping = false
  private started = false
  private firstTick = true

  constructor(
    private readonly deps: Pick<Deps, 'stores' | 'settings' | 'clock' | 'logger'>,
    private readonly options: ExportWorkerOptions
  ) {}

  async start() {
    this.started = true
    this.stopping = false
    this.schedule(0)
  }

  /** Stops looking for work and waits for the run in progress to stop at its next page (its lease then expires). */
  async stop() {
    this.stopping = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.running
  }

  /** Looks for work now (after a kick-off). */
  nudge() {
    if (this.started && !this.stopping) this.schedule(0)
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.running = this.running
        .then(() => this.tick())
        .catch((error) => this.deps.logger.error('FHIR export pass failed:', error))
        .finally(() => {
          if (!this.stopping && !this.timer)
            this.schedule(fhirSettings(this.deps.settings).exportPollIntervalMs)
        })
    }, ms)
    this.timer.unref()
  }

  /** One pass: expired jobs removed, then every job that can be claimed run, one after the other. */
  async tick() {
    await this.expire()
    const firstTick = this.firstTick
    this.firstTick = false
    for (;;) {
      if (this.stopping) return
      const job = await this.claim(firstTick && !this.options.shared)
      if (!job) return
      await this.run(job)
    }
  }

  /** Removes the jobs (and files) past their `expiresAt`; answers how many. */
  async expire(): Promise<number> {
    const now = this.deps.clock.now()
    const due = await this.options.store._find({
      query: { expiresAt: { $lte: now }, $limit: 100 },
      paginate: false
    })
    for (const job of due) {
      await fsp.rm(jobFolder(this.options.root, job.id), { recursive: true, force: true })
      await this.options.store._remove(job.id, { query: { expiresAt: { $lte: now } } }).catch(ignore404)
    }
    return due.length
  }

  /**
   * Claims one job: queued, or running with an expired lease (`takeOver`: any running job — at start-up on the
   * embedded engine, where a running job's holder can only be a process that died).
   */
  private async claim(takeOver: boolean): Promise<Stored<ExportJob> | null> {
    const settings = fhirSettings(this.deps.settings)
    const now = this.deps.clock.now()
    const candidates = await this.options.store._find({
      query: {
        $or: [
          { status: 'queued' },
          { status: 'running', ...(takeOver ? {} : { leaseUntil: { $lte: now } }) }
        ],
        $sort: { createdAt: 1 },
        $limit: 10
      },
      paginate: false
    })
    for (const candidate of candidates) {
      const claimed = await this.options.store
        ._patch(
          candidate.id,
          {
            status: 'running',
            leaseOwner: this.id,
            leaseUntil: now + settings.exportLeaseMs,
            progress: 0,
            $inc: { attempts: 1 }
          },
          {
            query: {
              status: candidate.status,
              leaseUntil: candidate.leaseUntil,
              ...(candidate.leaseOwner ? { leaseOwner: candidate.leaseOwner } : {})
            }
          }
        )
        .catch(ignore404)
      if (!claimed) continue
      if (claimed.attempts > settings.exportMaxAttempts) {
        await this.finish(claimed, {
          status: 'failed',
          error: `The export was interrupted ${claimed.attempts - 1} times; start a new one`
        })
        continue
      }
      return claimed
    }
    return null
  }

  /** Ends a run this worker holds (conditional on its lease): files removed unless complete. */
  private async finish(job: Stored<ExportJob>, change: Partial<ExportJob>) {
    const now = this.deps.clock.now()
    if (change.status !== 'complete')
      await fsp.rm(jobFolder(this.options.root, job.id), { recursive: true, force: true })
    return this.options.store
      ._patch(
        job.id,
        {
          ...change,
          leaseUntil: 0,
          completedAt: now,
          expiresAt: now + fhirSettings(this.deps.settings).exportTtlMs
        },
        { query: { status: 'running', leaseOwner: this.id } }
      )
      .catch(ignore404)
  }

  /** Renews the lease (and records progress); throws Interrupted when the job was cancelled or taken over. */
  private async renew(job: Stored<ExportJob>, progress: number) {
    if (this.stopping) throw new Interrupted('stopping')
    const now = this.deps.clock.now()
    const renewed = await this.options.store
      ._patch(
        job.id,
        { leaseUntil: now + fhirSettings(this.deps.settings).exportLeaseMs, progress },
        { query: { status: 'running', leaseOwner: this.id } }
      )
      .catch(ignore404)
    if (!renewed) throw new Interrupted('lease lost or cancelled')
  }

  private async run(job: Stored<ExportJob>) {
    const folder = jobFolder(this.options.root, job.id)
    const transactionTime = this.deps.clock.now()
    const files = new Map<string, OpenFile>()
    let written = 0
    try {
      await fsp.rm(folder, { recursive: true, force: true })
      await fsp.mkdir(folder, { recursive: true })
      const filter: ExportFilter = {
        facility: job.facility,
        since: job.since,
        pageSize: fhirSettings(this.deps.settings).exportPageSize,
        systemBase: this.options.systemBase(),
        binaryBase: `${job.base}/fhir/Binary`,
        embedded: !this.deps.settings.get('mongodb')
      }
      const wanted = job.types.length ? new Set(job.types) : null
      for await (const resources of exportSources(this.deps, filter)) {
        for (const resource of resources) {
          if (wanted && !wanted.has(resource.resourceType)) continue
          await this.write(files, folder, resource)
          written += 1
        }
        if (written > 0) faultPoint('fhir-export-page')
        // Between pages: the lease renewed (a cancel or a takeover is seen here, within one page).
        await this.renew(job, written)
      }
      const output: ExportOutput[] = []
      for (const file of [...files.values()].sort((a, b) => a.type.localeCompare(b.type))) {
        file.stream.end()
        if (!file.stream.closed) await once(file.stream, 'close')
        if (file.error) throw file.error
        const name = `${file.type}.ndjson`
        await fsp.rename(path.join(folder, `${name}.part`), path.join(folder, name))
        output.push({ type: file.type, file: name, count: file.count })
      }
      const done = await this.finish(job, { status: 'complete', output, transactionTime, progress: written })
      if (!done) {
        // Cancelled (or taken over) just before the end: nothing of this run stays.
        await fsp.rm(folder, { recursive: true, force: true }).catch(() => undefined)
        return
      }
      await this.options.audit(done, Object.fromEntries(output.map((file) => [file.type, file.count])))
    } catch (error) {
      for (const file of files.values()) file.stream.destroy()
      if (error instanceof Interrupted) {
        if (!this.stopping) await fsp.rm(folder, { recursive: true, force: true }).catch(() => undefined)
        return
      }
      // Cancelled or taken over while a file was being written: nothing of this run stays, nothing to report.
      const now = await this.options.store._get(job.id).catch(ignore404)
      if (!now || now.status !== 'running' || now.leaseOwner !== this.id) {
        await fsp.rm(folder, { recursive: true, force: true }).catch(() => undefined)
        return
      }
      this.deps.logger.error(`FHIR export ${job.id} failed:`, error)
      await this.finish(job, { status: 'failed', error: 'The export failed on the server' })
    }
  }

  private async write(files: Map<string, OpenFile>, folder: string, resource: FhirResource) {
    let file = files.get(resource.resourceType)
    if (!file) {
      if (!/^[A-Za-z]+$/.test(resource.resourceType)) return
      const stream = fs.createWriteStream(path.join(folder, `${resource.resourceType}.ndjson.part`))
      const opened: OpenFile = { type: resource.resourceType, stream, count: 0 }
      // A write error (the folder removed by a cancel, a full disk) fails the run at its next write or close.
      stream.on('error', (error) => (opened.error = error))
      file = opened
      files.set(resource.resourceType, file)
    }
    if (file.error) throw file.error
    file.count += 1
    if (!file.stream.write(`${JSON.stringify(resource)}\n`)) await once(file.stream, 'drain')
  }
}

const ignore404 = (error: unknown) => {
  if (errorCode(error) === 404) return null
  throw error
}
