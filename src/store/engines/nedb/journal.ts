// Journal-first collections on the embedded engine, for append-only logs written on every request (the audit
// trail): an append is one line added to the collection's data file through the group commit
// (src/store/engines/nedb/commit.ts, so it is durable per STORE_SYNC before the writer is answered), and nothing else —
// the in-memory copy that queries run on (with its indexes) is brought up to date from the file when it is read
// (`catchUp`), in one batch for everything appended since the last read. The request path so pays a line and a
// share of a sync; indexing is paid once per read, in bulk.
// The file keeps NeDB's line format (`_id` per document, `$$deleted` and `$$indexCreated` lines are understood),
// so a data file written by NeDB itself loads unchanged. At open, a torn last line (a write cut short by a crash;
// never acknowledged, since answers wait for the whole batch) is cut off. `rewrite` replaces the file with the
// in-memory documents (temp file + rename), e.g. after retention removed the oldest.
import fs from 'node:fs'
import type NeDB from '@seald-io/nedb'
import { deserialize, serialize } from '@seald-io/nedb/lib/model'
import { cutTornLine, GroupCommit, replaceFileWithLines, type StoreSync } from './commit'

const NEWLINE = 0x0a
const CHUNK = 16 << 20

// NeDB's `_id` index (untyped in NeDB's typings; its shape in @seald-io/nedb 4.1.2 is checked by
// test/store/nedb-internals.test.ts).
interface NeDBIndexes {
  indexes: { _id: { getMatching(value: unknown): unknown[] } }
}

interface RawDoc {
  _id?: string
  $$deleted?: boolean
  $$indexCreated?: unknown
  [key: string]: unknown
}

export class NeDBJournal {
  private readonly commit: GroupCommit
  /** Bytes of the file already applied to the in-memory collection. */
  private applied = 0
  private catching: Promise<void> | null = null
  private opened = false

  constructor(
    readonly filename: string,
    private readonly datastore: NeDB,
    readonly mode: StoreSync
  ) {
    this.commit = new GroupCommit(filename, mode)
  }

  /** Cuts a torn last line, then loads the file (start-up). */
  async open() {
    if (this.opened) return
    this.opened = true
    cutTornLine(this.filename)
    await this.catchUp()
  }

  /**
   * Appends documents (each keeps its own `_id`); resolves once they are written as STORE_SYNC promises. The
   * documents are plain JSON (strings, numbers, booleans, null, arrays, objects; no Date values), so a line is
   * their JSON — NeDB's format for such documents — without NeDB's slower serializer.
   */
  append(docs: Record<string, unknown>[]): Promise<void> {
    let text = ''
    for (const doc of docs) text += JSON.stringify(doc) + '\n'
    return this.commit.mode === 'always' ? this.commit.writeNow(text) : this.commit.enqueue(text)
  }

  /** Applies to the in-memory collection every whole line appended since the last call (one at a time). */
  catchUp(): Promise<void> {
    this.catching ??= this.applyNewLines().finally(() => {
      this.catching = null
    })
    return this.catching
  }

  private async applyNewLines() {
    let size: number
    try {
      size = (await fs.promises.stat(this.filename)).size
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    if (size <= this.applied) return
    const handle = await fs.promises.open(this.filename, 'r')
    try {
      // In chunks (a long log does not fit one string); each pass applies the chunk's whole lines.
      while (this.applied < size) {
        const buffer = Buffer.alloc(Math.min(size - this.applied, CHUNK))
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.applied)
        const whole = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE) + 1
        if (whole === 0) {
          if (bytesRead === CHUNK) throw new Error(`${this.filename}: a line longer than ${CHUNK} bytes`)
          return
        }
        await this.apply(buffer.subarray(0, whole).toString('utf8'))
        this.applied += whole
      }
    } finally {
      await handle.close()
    }
  }

  private async apply(text: string) {
    const internals = this.datastore as unknown as NeDBIndexes
    const inserts: RawDoc[] = []
    const pending = new Set<unknown>()
    const flush = async () => {
      if (inserts.length === 0) return
      await this.datastore.insertAsync(inserts.splice(0))
      pending.clear()
    }
    const present = (id: unknown) => pending.has(id) || internals.indexes._id.getMatching(id).length > 0
    for (const line of text.split('\n')) {
      if (line.length === 0) continue
      const doc = deserialize(line) as RawDoc
      if (doc.$$indexCreated !== undefined) continue
      // A `$$deleted` line removes the document; a later line for a document already present replaces it
      // (NeDB's format for an update).
      if (doc.$$deleted === true || present(doc._id)) {
        await flush()
        await this.datastore.removeAsync({ _id: doc._id }, { multi: false })
        if (doc.$$deleted === true) continue
      }
      inserts.push(doc)
      pending.add(doc._id)
    }
    await flush()
  }

  /**
   * Replaces the file with the in-memory documents (after removals); the caller makes sure no append runs
   * meanwhile and that the collection has caught up first.
   */
  async rewrite() {
    // Everything written so far is applied first; from the last check on, nothing yields until the rename, so
    // no append can land in the file being replaced (later ones are written to the new file).
    for (;;) {
      await this.commit.drain()
      await this.catchUp()
      if (!this.commit.busy && fs.statSync(this.filename).size === this.applied) break
    }
    this.commit.release()
    const docs = this.datastore.getAllData()
    replaceFileWithLines(
      this.filename,
      `${this.filename}~`,
      (function* () {
        for (const doc of docs) yield serialize(doc)
      })()
    )
    this.applied = fs.statSync(this.filename).size
  }

  /** Waits for pending appends and closes the file. */
  async close() {
    await this.commit.drain()
    this.commit.release()
  }
}
