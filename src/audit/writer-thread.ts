// The audit writer thread (a worker thread; src/audit/writer.ts starts it and talks to it): on the embedded engine
// it does an append's whole work off the main thread, where every request is served — chaining and hashing the
// entries (src/audit/chain.ts), the journal lines (the line format of src/store/nedb-journal.ts), the
// write and the fdatasync — and answers the chained events once they are durable. Per file it keeps the open handle
// and the chain's tail: the main thread sends the tail (read from the store) with its first batch, after a failure
// and after a release; otherwise each batch is chained after the last event written. A batch that fails is cut off
// the file and leaves the tail as it was, so the batches posted after it still chain onto what is in the file.
import fs from 'node:fs'
import { parentPort } from 'node:worker_threads'
import { chainEntries, type AuditEntry, type ChainTail } from './chain'
import type { StoreSync } from '../store/sync'

export type WriterRequest =
  | {
      id: number
      op: 'append'
      filename: string
      sync: StoreSync
      tail?: ChainTail
      entries: AuditEntry[]
      ids: string[]
      /** Whether the stored events are sent back (else the answer is null). */
      events?: boolean
    }
  | { id: number; op: 'release'; filename: string }

export type WriterReply =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string; code?: string }

// This module runs as its own worker thread, one per process serving the audit files of every app in it: its state
// is keyed by file, so two apps (two data folders) never share an entry.
const files = new Map<string, number>()
const tails = new Map<string, ChainTail>()

const fileFor = (filename: string) => {
  let fd = files.get(filename)
  if (fd === undefined) {
    fd = fs.openSync(filename, 'a', 0o644)
    files.set(filename, fd)
  }
  return fd
}

const release = (filename: string) => {
  tails.delete(filename)
  const fd = files.get(filename)
  if (fd === undefined) return
  files.delete(filename)
  fs.closeSync(fd)
}

// Writes a batch's lines (not yet synced); the caller syncs the file before answering.
const append = ({ filename, tail, entries, ids }: Extract<WriterRequest, { op: 'append' }>) => {
  if (tail) tails.set(filename, tail)
  const after = tails.get(filename)
  if (!after) throw Object.assign(new Error(`No chain tail for ${filename}`), { code: 'NO_TAIL' })
  // The ids come from the main thread (the store's id format).
  const events = chainEntries(after, entries).map((doc, index) => ({ ...doc, id: ids[index] }))
  let text = ''
  for (const event of events) text += JSON.stringify({ ...event, _id: event.id }) + '\n'
  const buffer = Buffer.from(text, 'utf8')
  const fd = fileFor(filename)
  const start = fs.fstatSync(fd).size
  try {
    let offset = 0
    while (offset < buffer.length) offset += fs.writeSync(fd, buffer, offset, buffer.length - offset)
  } catch (error) {
    // A batch cut short (disk full) must not leave a torn line for the next one to run into: the file is cut back to
    // where the batch started, and let go (the next append reopens it). If it cannot be cut back, the tail is
    // forgotten too: the main thread then reads it from the file once everything in flight is settled.
    let cut = true
    try {
      fs.ftruncateSync(fd, start)
    } catch {
      cut = false
    }
    const kept = tails.get(filename)
    release(filename)
    if (cut && kept) tails.set(filename, kept)
    throw error
  }
  const last = events[events.length - 1]
  tails.set(filename, { seq: last.seq, hash: last.hash, at: last.at })
  return events
}

const failure = (id: number, error: unknown): WriterReply => {
  const failed = error as NodeJS.ErrnoException
  return {
    id,
    ok: false,
    message: failed?.message ?? String(error),
    ...(failed?.code ? { code: failed.code } : {})
  }
}

// Group commit across batches: the requests that arrived while the thread was busy (writing or syncing) are handled
// together — each batch written in order, then one fdatasync per file for all of them (unless `os`), then the
// answers. A release first settles the appends before it.
const waiting: WriterRequest[] = []
let scheduled = false

const flush = () => {
  scheduled = false
  const requests = waiting.splice(0)
  let unsynced: { reply: WriterReply; filename: string; sync: StoreSync }[] = []
  const settle = () => {
    const failedFiles = new Map<string, unknown>()
    for (const filename of new Set(
      unsynced.filter((item) => item.reply.ok && item.sync !== 'os').map((item) => item.filename)
    )) {
      const fd = files.get(filename)
      try {
        if (fd !== undefined) fs.fdatasyncSync(fd)
      } catch (error) {
        failedFiles.set(filename, error)
      }
    }
    for (const { reply, filename } of unsynced) {
      parentPort!.postMessage(
        reply.ok && failedFiles.has(filename) ? failure(reply.id, failedFiles.get(filename)) : reply
      )
    }
    unsynced = []
  }
  for (const request of requests) {
    if (request.op === 'release') {
      settle()
      try {
        release(request.filename)
        parentPort!.postMessage({ id: request.id, ok: true, value: null } satisfies WriterReply)
      } catch (error) {
        parentPort!.postMessage(failure(request.id, error))
      }
      continue
    }
    let reply: WriterReply
    try {
      const events = append(request)
      reply = { id: request.id, ok: true, value: request.events === false ? null : events }
    } catch (error) {
      reply = failure(request.id, error)
    }
    unsynced.push({ reply, filename: request.filename, sync: request.sync })
  }
  settle()
}

parentPort?.on('message', (request: WriterRequest) => {
  waiting.push(request)
  if (!scheduled) {
    scheduled = true
    setImmediate(flush)
  }
})
