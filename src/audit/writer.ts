// The main thread's side of the audit writer thread (src/audit/writer-thread.ts): one worker per process, started at
// the first append and shared by every app in the process (one in production; many in tests), so that appending
// an audit event costs the request's thread a message, not the hashing, the write and the sync. Requests are
// answered in order; if the thread dies, what was in flight fails (the callers answer 500 and reload the chain's
// tail) and the next append starts a new one. The thread never keeps the process alive by itself.
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import type { AuditEntry, AuditEvent, ChainTail } from './chain'
import type { StoreSync } from '../store/sync'
import type { WriterReply, WriterRequest } from './writer-thread'

// Request bodies without their id (the writer numbers them).
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never
type Body = DistributiveOmit<WriterRequest, 'id'>

interface Waiting {
  resolve(value: unknown): void
  reject(error: Error): void
}

// Under ts-node (development, tests) the thread loads the TypeScript source the same way; compiled, the .js file.
const startWorker = () => {
  const file = path.join(__dirname, `writer-thread${path.extname(__filename)}`)
  if (file.endsWith('.ts')) {
    return new Worker(
      `require('ts-node').register({ transpileOnly: true }); require(${JSON.stringify(file)})`,
      { eval: true }
    )
  }
  return new Worker(file)
}

class WriterThread {
  private worker: Worker | null = null
  private next = 1
  private readonly waiting = new Map<number, Waiting>()

  private failAll(error: Error) {
    for (const waiter of this.waiting.values()) waiter.reject(error)
    this.waiting.clear()
  }

  private thread() {
    if (this.worker) return this.worker
    const worker = startWorker()
    worker.unref()
    worker.on('message', (reply: WriterReply) => {
      const waiter = this.waiting.get(reply.id)
      if (!waiter) return
      this.waiting.delete(reply.id)
      if (this.waiting.size === 0) worker.unref()
      if (reply.ok) waiter.resolve(reply.value)
      else waiter.reject(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}))
    })
    const gone = (error: Error) => {
      if (this.worker !== worker) return
      this.worker = null
      this.failAll(error)
    }
    worker.on('error', gone)
    worker.on('exit', (code) => gone(new Error(`The audit writer thread stopped (exit code ${code})`)))
    this.worker = worker
    return worker
  }

  private request<T>(body: Body): Promise<T> {
    const worker = this.thread()
    const id = this.next++
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject })
      // Keeps the process alive while an answer is due (a shut-down waits for its appends).
      worker.ref()
      worker.postMessage({ ...body, id } as WriterRequest)
    })
  }

  /**
   * Chains `entries` (with these ids) after the thread's tail of `filename` — `tail` when given (first append, after
   * a failure or a release), else the last event it wrote there — appends them and syncs as `sync` says. Batches are
   * written in the order they are posted. Answers the stored events, or null when `events` is false.
   */
  append(
    filename: string,
    sync: StoreSync,
    tail: ChainTail | undefined,
    entries: AuditEntry[],
    ids: string[],
    events = true
  ) {
    // (null when `events` is false: the thread sends the stored events back only when asked)
    return this.request<AuditEvent[] | null>({ op: 'append', filename, sync, tail, entries, ids, events })
  }

  /** Closes the thread's handle on `filename` and forgets its tail (before the file is replaced); the next append reopens it. */
  release(filename: string) {
    if (!this.worker) return Promise.resolve()
    return this.request<void>({ op: 'release', filename })
  }
}

/** The process's audit writer thread. */
// One writer thread per process, like the process's stdout: every app's audit file goes through it, keyed by file
// (started on first use, stopped when idle).
export const auditWriter = new WriterThread()
