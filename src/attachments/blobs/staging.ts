// Staging of uploaded bytes in a temp folder (DATA_DIR/attachments/tmp), shared by both backends: the bytes are
// streamed to a new temp file while measured and hashed, then fsynced; the backend then keeps them (the embedded
// store renames the file to its content-hash path, S3 uploads it) or drops them. A temp file is named after this
// host and process (`<host>~<pid>~<random>`) so that the start-up sweep can tell a crashed process's leftovers —
// a kill -9 mid-upload leaves a half file here, never at a kept path — from the uploads of a live process sharing
// the folder.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { pipeline } from 'node:stream/promises'
import { Meter } from './meter'
import { processRunning } from '../../store/data-lock'

export interface StagedFile {
  file: string
  size: number
  sha256: string
  head: Buffer
  text: boolean
}

// Other hosts' temp files are only removed when this old: their process may still be writing them.
const FOREIGN_STALE_MS = 24 * 60 * 60 * 1000

const hostTag = () => os.hostname().replace(/[^A-Za-z0-9.-]/g, '_')

const removeQuietly = (file: string) => fs.promises.rm(file, { force: true }).catch(() => undefined)

/** fsyncs a file or a folder (a folder: so that a rename in it survives a power loss). */
export const syncPath = async (target: string, flags = 'r') => {
  const handle = await fs.promises.open(target, flags)
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

export class Staging {
  readonly dir: string

  constructor(root: string) {
    this.dir = path.join(root, 'tmp')
  }

  /** Streams `source` into a new temp file (measured, hashed, fsynced); on any failure the file is removed. */
  async write(source: NodeJS.ReadableStream, maxBytes: number): Promise<StagedFile> {
    await fs.promises.mkdir(this.dir, { recursive: true })
    const file = path.join(this.dir, `${hostTag()}~${process.pid}~${randomUUID()}`)
    const meter = new Meter(maxBytes)
    try {
      await pipeline(source, meter, fs.createWriteStream(file, { flags: 'wx' }))
      await syncPath(file, 'r+')
    } catch (error) {
      await removeQuietly(file)
      throw error
    }
    return { file, size: meter.size, sha256: meter.digest(), head: meter.head(), text: meter.text }
  }

  discard(file: string) {
    return removeQuietly(file)
  }

  /** Removes the temp files of processes that are gone (this host), of an earlier process with this pid (a
   *  container restarted), and of any host when older than a day. Answers how many were removed. */
  async sweep(): Promise<number> {
    let names: string[]
    try {
      names = await fs.promises.readdir(this.dir)
    } catch {
      return 0
    }
    const host = hostTag()
    let removed = 0
    for (const name of names) {
      const file = path.join(this.dir, name)
      const [fileHost, pidText] = name.split('~')
      const pid = Number(pidText)
      let stale = fileHost === host && (pid === process.pid || !Number.isInteger(pid) || !processRunning(pid))
      if (!stale) {
        const stat = await fs.promises.stat(file).catch(() => null)
        stale = !!stat && Date.now() - stat.mtimeMs > FOREIGN_STALE_MS
      }
      if (stale) {
        await removeQuietly(file)
        removed++
      }
    }
    return removed
  }
}
