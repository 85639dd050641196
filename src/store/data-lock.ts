// One writer per data folder: the embedded engine's files under DATA_DIR are read once at start and then written
// from the process's memory (appends, and whole-file rewrites at compaction), so two processes on one folder would
// each see only their own writes and overwrite each other's. At start the server takes an exclusive lock on the
// folder — `DATA_DIR/server.lock` holding the holder's pid, host, boot id and start time — before it reads or
// writes a data file, and refuses to start while another live server holds it.
// - Taken atomically: the content is written to a temp file, synced, then hard-linked to `server.lock` (link(2)
//   fails if the lock exists, so it appears whole or not at all); where the file system has no hard links, an
//   O_EXCL create. Neither ever follows a symbolic link.
// - A lock is stale when its holder no longer runs: same host and (the machine restarted since: another boot id, or
//   no process with that pid, or the pid is this process's own but no app in it holds the lock — a container's PID 1
//   after a restart). A stale lock is taken over with a warning: renamed aside, checked to be the very file judged
//   stale (so two servers starting together never both take it), removed, and a new lock taken.
// - Never taken over: a lock of a live process on this host (whatever the process is: the message says how to
//   remove it when the operator knows it is stale), a lock from another host (a shared network folder: its pid
//   means nothing here), a lock file that is a directory, a symbolic link or unreadable. Each refusal is one line
//   naming DATA_DIR, the folder, the holder and the fix.
// - Two apps in one process on the same folder are refused like two processes. The lock is released when the
//   store closes (graceful shutdown, app teardown) and, failing that, when the process exits.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { logger } from '../logger'
import { StartupError } from '../startup-error'

/** The lock file's name inside DATA_DIR. */
export const LOCK_FILE = 'server.lock'

/** A refusal to use a data folder, in one line for operators (no stack trace is useful). */
export class DataDirError extends StartupError {
  constructor(message: string) {
    super(message)
    this.name = 'DataDirError'
  }
}

interface Holder {
  pid: number
  host: string
  bootId?: string
  startedAt: string
  /** Tells the apps of one process apart. */
  instance: string
}

export interface DataLock {
  /** The lock file. */
  file: string
  /** Removes the lock (when it is still this holder's); idempotent. */
  release(): void
}

// The locks held by apps of this process, by lock file: instance. Process-wide by nature: a second app of the
// same process must find the first one's lock.
const held = new Map<string, string>()
let exitHookInstalled = false

// Linux: changes at every boot, so a lock written before a restart is known stale whatever its pid is now.
const bootId = (): string | undefined => {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}

/** Whether a process with this pid runs on this host (only "no such process" counts as gone). */
export const processRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException)?.code

const syncDir = (dir: string) => {
  try {
    const fd = fs.openSync(dir, 'r')
    try {
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    // not every platform syncs a directory; the lock still exists
  }
}

/** The folder checked and created: a file, an uncreatable or unwritable folder is a one-line refusal. */
const prepareFolder = (dir: string) => {
  let stat: fs.Stats | undefined
  try {
    stat = fs.statSync(dir)
  } catch (error) {
    if (codeOf(error) !== 'ENOENT' && codeOf(error) !== 'ENOTDIR')
      throw new DataDirError(
        `DATA_DIR=${dir} cannot be read (${codeOf(error)}): set DATA_DIR to a folder this server may use`
      )
  }
  if (stat && !stat.isDirectory()) {
    throw new DataDirError(
      `DATA_DIR=${dir} is a file, not a folder: set DATA_DIR to a folder for the data files (it is created if missing), or move that file away`
    )
  }
  if (!stat) {
    try {
      fs.mkdirSync(dir, { recursive: true })
    } catch (error) {
      const reason =
        codeOf(error) === 'ENOTDIR' || codeOf(error) === 'EEXIST'
          ? 'a part of its path is a file'
          : `${codeOf(error) ?? (error as Error).message}`
      throw new DataDirError(
        `DATA_DIR=${dir} cannot be created (${reason}): set DATA_DIR to a folder this server may create, or create it with write access for this user`
      )
    }
  }
  try {
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK)
  } catch {
    throw new DataDirError(
      `DATA_DIR=${dir} is not writable by this server (uid ${process.getuid?.() ?? '?'}): give that user write access to the folder (chown/chmod), or set DATA_DIR to a writable folder`
    )
  }
}

const describe = (holder: Holder) =>
  `pid ${holder.pid} on ${holder.host === os.hostname() ? 'this host' : `host ${holder.host}`}, since ${holder.startedAt}`

type Seen = { kind: 'gone' } | { kind: 'held'; holder: Holder; stat: fs.Stats }

// What is at the lock's path, without following a symbolic link; refuses what is not a readable lock file.
const inspect = (dir: string, file: string): Seen => {
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(file)
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return { kind: 'gone' }
    throw error
  }
  const removeHint = `if no server uses ${dir}, remove it (rm -r ${file}) and start again`
  if (stat.isSymbolicLink()) {
    let target = '?'
    try {
      target = fs.readlinkSync(file)
    } catch {
      // named anyway
    }
    throw new DataDirError(
      `DATA_DIR=${dir} cannot be locked: ${file} is a symbolic link (to ${target}), which the server never follows; ${removeHint}`
    )
  }
  if (stat.isDirectory())
    throw new DataDirError(
      `DATA_DIR=${dir} cannot be locked: ${file} is a directory, not a lock file; ${removeHint}`
    )
  if (!stat.isFile())
    throw new DataDirError(`DATA_DIR=${dir} cannot be locked: ${file} is not a regular file; ${removeHint}`)
  let text = ''
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0))
    try {
      const buffer = Buffer.alloc(4096)
      text = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8')
    } finally {
      fs.closeSync(fd)
    }
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return { kind: 'gone' }
    throw new DataDirError(
      `DATA_DIR=${dir} cannot be locked: ${file} cannot be read (${codeOf(error)}); ${removeHint}`
    )
  }
  let holder: Partial<Holder> | undefined
  try {
    holder = JSON.parse(text)
  } catch {
    holder = undefined
  }
  const valid =
    holder &&
    typeof holder === 'object' &&
    Number.isSafeInteger(holder.pid) &&
    (holder.pid as number) > 0 &&
    typeof holder.host === 'string' &&
    holder.host.length > 0 &&
    typeof holder.startedAt === 'string' &&
    typeof holder.instance === 'string'
  if (!valid)
    throw new DataDirError(
      `DATA_DIR=${dir} cannot be locked: ${file} does not hold a lock this server wrote (pid, host, start time); ${removeHint}`
    )
  return { kind: 'held', holder: holder as Holder, stat }
}

// Why the holder no longer runs (a stale lock), or undefined while it may.
const staleReason = (file: string, holder: Holder, myBoot: string | undefined): string | undefined => {
  if (holder.host !== os.hostname()) return undefined
  if (holder.bootId && myBoot && holder.bootId !== myBoot) return 'the machine restarted since'
  if (holder.pid === process.pid)
    return held.get(file) === holder.instance ? undefined : 'its pid is now this process'
  return processRunning(holder.pid) ? undefined : 'that process no longer runs'
}

const refusal = (dir: string, file: string, holder: Holder) => {
  if (holder.host !== os.hostname()) {
    return new DataDirError(
      `DATA_DIR=${dir} is in use by pid ${holder.pid} on host ${holder.host} (since ${holder.startedAt}); a lock from another host is never taken over: stop that server, or, if ${holder.host} no longer runs it, remove ${file}`
    )
  }
  if (holder.pid === process.pid)
    return new DataDirError(
      `DATA_DIR=${dir} is in use by another app of this process (pid ${holder.pid}): one app per data folder; give this one its own DATA_DIR`
    )
  return new DataDirError(
    `DATA_DIR=${dir} is in use by another server (${describe(holder)}): one server per data folder — give this one its own DATA_DIR, or stop pid ${holder.pid} first; if pid ${holder.pid} is not a server of this folder (a stale lock), remove ${file}`
  )
}

// Moves a stale lock aside, provided it is still the file judged stale (same inode), and removes it.
const takeOver = (file: string, stat: fs.Stats): boolean => {
  const aside = `${file}.stale-${process.pid}-${crypto.randomBytes(4).toString('hex')}`
  try {
    fs.renameSync(file, aside)
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return false
    throw error
  }
  const moved = fs.lstatSync(aside)
  if (moved.ino !== stat.ino || moved.dev !== stat.dev) {
    // Another server replaced it meanwhile: put its lock back (unless yet another one exists) and look again.
    try {
      fs.linkSync(aside, file)
    } catch {
      // a lock exists again; it is examined on the next pass
    }
    fs.unlinkSync(aside)
    return false
  }
  fs.unlinkSync(aside)
  return true
}

// Creates `file` holding `content`, synced; EEXIST when it exists (O_CREAT | O_EXCL never follows a link).
const writeNew = (file: string, content: string) => {
  const fd = fs.openSync(file, 'wx', 0o644)
  try {
    fs.writeSync(fd, content)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

// Writes the holder's content to a temp file and links it to the lock's path: EEXIST when a lock exists.
const create = (dir: string, file: string, content: string) => {
  const temp = path.join(dir, `${LOCK_FILE}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`)
  writeNew(temp, content)
  try {
    fs.linkSync(temp, file)
  } catch (error) {
    const code = codeOf(error)
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error
    // No hard links on this file system: an exclusive create.
    writeNew(file, content)
  } finally {
    fs.unlinkSync(temp)
  }
  syncDir(dir)
}

const releaseAll = () => {
  for (const [file, instance] of held) releaseFile(file, instance)
}

const releaseFile = (file: string, instance: string) => {
  if (held.get(file) !== instance) return
  held.delete(file)
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0))
    let text: string
    try {
      const buffer = Buffer.alloc(4096)
      text = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8')
    } finally {
      fs.closeSync(fd)
    }
    // Only this holder's own lock is removed (never one that replaced it).
    if ((JSON.parse(text) as Holder).instance === instance) fs.unlinkSync(file)
  } catch {
    // gone or replaced: nothing of ours to remove
  }
}

/**
 * Takes the exclusive lock on the data folder `dataDir` (created if missing) for this app, or throws a
 * DataDirError whose message is the one line to show.
 */
export const lockDataDir = (dataDir: string): DataLock => {
  const dir = path.resolve(dataDir)
  prepareFolder(dir)
  const file = path.join(fs.realpathSync(dir), LOCK_FILE)
  const myBoot = bootId()
  const holder: Holder = {
    pid: process.pid,
    host: os.hostname(),
    ...(myBoot ? { bootId: myBoot } : {}),
    startedAt: new Date().toISOString(),
    instance: crypto.randomUUID()
  }
  const content = JSON.stringify(holder) + '\n'
  for (let attempt = 0; ; attempt++) {
    if (attempt === 5)
      throw new DataDirError(
        `DATA_DIR=${dir} cannot be locked: ${file} keeps changing (several servers starting on one folder?); start one server per data folder`
      )
    try {
      create(dir, file, content)
      break
    } catch (error) {
      if (error instanceof DataDirError) throw error
      if (codeOf(error) === 'EACCES' || codeOf(error) === 'EROFS') {
        throw new DataDirError(
          `DATA_DIR=${dir} is not writable by this server (${codeOf(error)}): give it write access to the folder, or set DATA_DIR to a writable folder`
        )
      }
      if (codeOf(error) !== 'EEXIST') throw error
    }
    const seen = inspect(dir, file)
    if (seen.kind === 'gone') continue
    const reason = staleReason(file, seen.holder, myBoot)
    if (!reason) throw refusal(dir, file, seen.holder)
    if (takeOver(file, seen.stat)) {
      logger.warn(
        `DATA_DIR=${dir}: took over the lock left by ${describe(seen.holder)} (${reason}: a crash, kill -9 or power loss)`
      )
    }
  }
  held.set(file, holder.instance)
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on('exit', releaseAll)
  }
  return { file, release: () => releaseFile(file, holder.instance) }
}
