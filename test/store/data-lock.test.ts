// One writer per data folder on the embedded engine: the DATA_DIR lock between processes (real servers as child
// processes) and between apps of one process, stale locks, bad DATA_DIR values and a tampered lock file.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createApp } from '../../src/app'
import { http, signUp, startServer, tempDir } from '../helpers/app'
import { startChild } from '../helpers/child'
import { startMongoEmulator } from '../helpers/mongo-emulator'
import { findStartLine, serverArgs } from '../helpers/server-process'

const root = path.resolve(__dirname, '../..')
const lockOf = (dir: string) => path.join(dir, 'server.lock')
const readLock = (dir: string) => JSON.parse(fs.readFileSync(lockOf(dir), 'utf8'))
const dataFiles = (dir: string) => fs.readdirSync(dir).filter((name) => name.endsWith('.db'))

/** Starts the server expecting it to refuse: its exit code and everything it wrote. */
const refusedStart = (
  env: Record<string, string>,
  options: { uid?: number; gid?: number } = {}
): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, serverArgs(), {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'error',
        MONGODB_URL: '',
        ...env
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...options
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code) => {
      if (findStartLine(output)) reject(new Error(`the server started:\n${output}`))
      else resolve({ code, output })
    })
    child.stdout.on('data', () => {
      if (findStartLine(output)) child.kill('SIGKILL')
    })
  })

// One line (a JSON log line), no stack trace.
const oneLine = (output: string) => {
  const lines = output.split('\n').filter((line) => line.trim() !== '')
  assert.equal(lines.length, 1, `one line expected:\n${output}`)
  assert.doesNotMatch(output, /\n\s+at /, 'no stack trace')
  return JSON.parse(lines[0]).msg as string
}

describe('one writer per data folder (embedded engine)', function () {
  // child-process start-ups compile the app: slow on a loaded machine
  this.timeout(120000)
  const dirs: string[] = []
  const dir = (prefix = 'clinic-lock-') => {
    const made = tempDir(prefix)
    dirs.push(made)
    return made
  }
  after(() => {
    for (const made of dirs) fs.rmSync(made, { recursive: true, force: true })
  })

  describe('between processes', () => {
    it('refuses a second server on the same DATA_DIR in one line naming DATA_DIR, the folder and the holder; the first keeps serving and loses nothing', async () => {
      const dataDir = dir()
      const first = await startChild({ DATA_DIR: dataDir })
      let user
      try {
        const refused = await refusedStart({ DATA_DIR: dataDir })
        assert.notEqual(refused.code, 0)
        const message = oneLine(refused.output)
        assert.match(
          message,
          new RegExp(
            `^DATA_DIR=${dataDir} is in use by another server \\(pid ${first.process.pid} on this host`
          )
        )
        assert.match(message, /give this one its own DATA_DIR/)
        assert.equal(readLock(dataDir).pid, first.process.pid, 'the lock is still the first server’s')
        // The first server goes on: a record created after the refusal survives its restart.
        user = await signUp(first.url, { organization: { name: 'Kept Clinic', type: 'facility' } })
      } finally {
        assert.deepEqual(await first.kill('SIGTERM'), { code: 0, signal: null })
      }
      assert.equal(fs.existsSync(lockOf(dataDir)), false, 'a graceful stop releases the lock')
      const again = await startChild({ DATA_DIR: dataDir })
      try {
        const login = await http(again.url, 'POST', '/authentication', {
          body: { email: user.email, password: user.password }
        })
        assert.equal(login.status, 201)
        const org = await http(again.url, 'GET', `/organizations/${user.organization.id}`, {
          token: login.body.accessToken
        })
        assert.equal(org.body.name, 'Kept Clinic')
      } finally {
        await again.kill('SIGTERM')
      }
    })

    it('takes over the lock of a server killed with kill -9 at the next start, with a warning', async () => {
      const dataDir = dir()
      const first = await startChild({ DATA_DIR: dataDir })
      const user = await signUp(first.url)
      await first.kill('SIGKILL')
      assert.equal(readLock(dataDir).pid, first.process.pid, 'kill -9 leaves the lock behind')
      const second = await startChild({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
      try {
        assert.match(
          second.output(),
          new RegExp(`DATA_DIR=${dataDir}: took over the lock left by pid ${first.process.pid} on this host`)
        )
        assert.equal(readLock(dataDir).pid, second.process.pid)
        const login = await http(second.url, 'POST', '/authentication', {
          body: { email: user.email, password: user.password }
        })
        assert.equal(login.status, 201)
      } finally {
        await second.kill('SIGTERM')
      }
    })

    it('refuses a lock naming a live process of this host (pid 1) and says how to remove it if it is stale', async () => {
      const dataDir = dir()
      const planted = JSON.stringify({
        pid: 1,
        host: os.hostname(),
        startedAt: '2020-01-01T00:00:00.000Z',
        instance: 'planted'
      })
      fs.writeFileSync(lockOf(dataDir), planted)
      const refused = await refusedStart({ DATA_DIR: dataDir })
      assert.notEqual(refused.code, 0)
      const message = oneLine(refused.output)
      assert.match(
        message,
        /is in use by another server \(pid 1 on this host, since 2020-01-01T00:00:00.000Z\)/
      )
      assert.ok(
        message.includes(`if pid 1 is not a server of this folder (a stale lock), remove ${lockOf(dataDir)}`),
        message
      )
      assert.equal(fs.readFileSync(lockOf(dataDir), 'utf8'), planted)
      assert.deepEqual(dataFiles(dataDir), [], 'no data file read or written')
    })

    it('refuses a DATA_DIR that is a file, in one line naming the setting and the fix', async () => {
      const file = path.join(dir(), 'not-a-folder')
      fs.writeFileSync(file, 'x')
      const refused = await refusedStart({ DATA_DIR: file })
      assert.notEqual(refused.code, 0)
      assert.equal(
        oneLine(refused.output),
        `DATA_DIR=${file} is a file, not a folder: set DATA_DIR to a folder for the data files (it is created if missing), or move that file away`
      )
    })

    it('refuses a DATA_DIR it may not write, in one line naming the setting and the fix', async () => {
      const parent = dir()
      fs.chmodSync(parent, 0o755)
      const readOnly = path.join(parent, 'read-only')
      fs.mkdirSync(readOnly, { mode: 0o555 })
      fs.chmodSync(readOnly, 0o555)
      // root writes anywhere: the server then runs as nobody
      const asRoot = process.getuid?.() === 0
      const refused = await refusedStart(
        { DATA_DIR: readOnly, HOME: parent },
        asRoot ? { uid: 65534, gid: 65534 } : {}
      )
      assert.notEqual(refused.code, 0)
      assert.match(
        oneLine(refused.output),
        new RegExp(
          `^DATA_DIR=${readOnly} is not writable by this server \\(uid \\d+\\): give that user write access to the folder \\(chown/chmod\\), or set DATA_DIR to a writable folder$`
        )
      )
    })
  })

  describe('in one process and against a tampered lock file', () => {
    const embedded = { host: '127.0.0.1', port: 0, logLevel: 'silent' as const, mongodb: '' }

    it('refuses a second app on the same folder while the first runs, and allows it after the first stopped', async () => {
      const dataDir = dir()
      const first = await startServer({ dataDir, mongodb: '' })
      assert.throws(
        () => createApp({ ...embedded, dataDir }),
        new RegExp(
          `^DataDirError: DATA_DIR=${dataDir} is in use by another app of this process \\(pid ${process.pid}\\)`
        )
      )
      const user = await signUp(first.url)
      await first.close({ keep: true })
      assert.equal(fs.existsSync(lockOf(dataDir)), false)
      const second = await startServer({ dataDir, mongodb: '' })
      try {
        assert.equal(
          (
            await http(second.url, 'POST', '/authentication', {
              body: { email: user.email, password: user.password }
            })
          ).status,
          201
        )
      } finally {
        await second.close({ keep: true })
      }
    })

    it('takes over a lock of a process that no longer runs, of this process’s own pid, or of an earlier boot', async () => {
      const gone = spawnSync(process.execPath, ['-e', '']).pid
      const bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
      const stale = [
        { pid: gone, host: os.hostname(), startedAt: '2020-01-01T00:00:00.000Z', instance: 'dead' },
        // e.g. a container's PID 1 after a restart: the same pid, but no app of this process holds it
        { pid: process.pid, host: os.hostname(), startedAt: '2020-01-01T00:00:00.000Z', instance: 'earlier' },
        {
          pid: 1,
          host: os.hostname(),
          bootId: `${bootId.slice(0, -1)}${bootId.endsWith('0') ? '1' : '0'}`,
          startedAt: '2020-01-01T00:00:00.000Z',
          instance: 'before-reboot'
        }
      ]
      for (const holder of stale) {
        const dataDir = dir()
        fs.writeFileSync(lockOf(dataDir), JSON.stringify(holder))
        const server = await startServer({ dataDir, mongodb: '' })
        try {
          assert.equal(readLock(dataDir).pid, process.pid, `taken over from ${holder.instance}`)
          assert.notEqual(readLock(dataDir).instance, holder.instance)
        } finally {
          await server.close()
        }
      }
    })

    it('never takes over a lock from another host, even of a pid that does not run here', () => {
      const dataDir = dir()
      const holder = {
        pid: spawnSync(process.execPath, ['-e', '']).pid,
        host: 'file-server-peer',
        startedAt: '2020-01-01T00:00:00.000Z',
        instance: 'remote'
      }
      fs.writeFileSync(lockOf(dataDir), JSON.stringify(holder))
      assert.throws(
        () => createApp({ ...embedded, dataDir }),
        /is in use by pid \d+ on host file-server-peer .*a lock from another host is never taken over: stop that server, or, if file-server-peer no longer runs it, remove /
      )
      assert.equal(readLock(dataDir).instance, 'remote')
      assert.deepEqual(dataFiles(dataDir), [])
    })

    it('refuses a lock that is a directory, garbage, or a symbolic link — and never writes through the link', () => {
      const elsewhere = dir('clinic-elsewhere-')
      const victim = path.join(elsewhere, 'victim')
      fs.writeFileSync(victim, 'precious')
      const cases: [string, (lock: string) => void, RegExp][] = [
        [
          'a directory',
          (lock) => fs.mkdirSync(lock),
          /is a directory, not a lock file; if no server uses .*, remove it \(rm -r .*server\.lock\) and start again/
        ],
        [
          'garbage',
          (lock) => fs.writeFileSync(lock, 'not { a lock'),
          /does not hold a lock this server wrote \(pid, host, start time\); if no server uses/
        ],
        ['an empty file', (lock) => fs.writeFileSync(lock, ''), /does not hold a lock this server wrote/],
        [
          'a link to a file elsewhere',
          (lock) => fs.symlinkSync(victim, lock),
          /is a symbolic link \(to .*victim\), which the server never follows; if no server uses/
        ],
        [
          'a link to nothing yet',
          (lock) => fs.symlinkSync(path.join(elsewhere, 'planted'), lock),
          /is a symbolic link \(to .*planted\), which the server never follows/
        ]
      ]
      for (const [what, plant, message] of cases) {
        const dataDir = dir()
        plant(lockOf(dataDir))
        assert.throws(() => createApp({ ...embedded, dataDir }), message, what)
        assert.deepEqual(dataFiles(dataDir), [], `${what}: no data file read or written`)
      }
      assert.equal(fs.readFileSync(victim, 'utf8'), 'precious')
      assert.deepEqual(fs.readdirSync(elsewhere), ['victim'], 'nothing created through a link')
    })
  })

  describe('on MongoDB', () => {
    it('takes no lock: two apps with the same DATA_DIR both run, and the folder holds no lock', async () => {
      const mongo = await startMongoEmulator()
      const dataDir = dir()
      try {
        const a = await startServer({ dataDir, mongodb: mongo.url })
        const b = await startServer({ dataDir, mongodb: mongo.url })
        try {
          assert.equal((await http(a.url, 'GET', '/health/ready')).status, 200)
          assert.equal((await http(b.url, 'GET', '/health/ready')).status, 200)
          assert.equal(fs.existsSync(lockOf(dataDir)), false)
        } finally {
          await a.close({ keep: true })
          await b.close({ keep: true })
        }
      } finally {
        await mongo.stop()
      }
    })
  })
})
