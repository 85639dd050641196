// A data folder that does not load: the start-up message (file, line, index, fix) and `npm run store:repair`, on
// the corruption two servers writing to one DATA_DIR leave (the audit trail's chain forked: duplicate `seq`s), on
// duplicate unique values and on unreadable lines. Real servers, real files, the command as operators run it.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { http, signUp, startServer, tempDir } from '../helpers/app'
import { startChild } from '../helpers/child'
import { startServerProcess } from '../helpers/server-process'

const root = path.resolve(__dirname, '../..')
const admin = { email: 'repair-admin@example.test', password: 'Admin password 1' }
const adminEnv = { ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password }

/** `npm run store:repair -- <args>` as an operator runs it. */
const repair = (...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'store:repair', '--', ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })

/** The start's failure (the server must not start): its exit code and output. */
const failedStart = async (env: Record<string, string>): Promise<{ code: number; output: string }> => {
  const started = await startServerProcess({ MONGODB_URL: '', ...env }).then(
    async (server) => {
      await server.kill()
      return null
    },
    (error) => error
  )
  assert.ok(started, 'the server must not start')
  return started
}

const lines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')

// Audit events without an account: failed logins.
const failLogins = async (url: string, count: number, tag: string) => {
  for (let i = 0; i < count; i++) {
    const res = await http(url, 'POST', '/authentication', {
      body: { email: `${tag}-${i}@example.test`, password: 'not the password' }
    })
    assert.equal(res.status, 401)
  }
}

describe('repairing a data folder that does not load', function () {
  this.timeout(300000)
  const dirs: string[] = []
  const dir = (prefix: string) => {
    const made = tempDir(prefix)
    dirs.push(made)
    return made
  }
  after(() => {
    for (const made of dirs) fs.rmSync(made, { recursive: true, force: true })
  })

  describe('the audit trail of two servers on one DATA_DIR (duplicate seq)', () => {
    let dataDir: string
    let file: string
    let corrupt: Buffer
    let common: number
    let firstWriter: any[]
    let secondWriter: any[]

    // The corruption exactly as two writers leave it: two servers that loaded the same chain each append their own
    // events after its tail, into one file. Built from real servers — one folder copied, each copy written by its own
    // server — then the two files' new lines interleaved as concurrent appends land.
    before(async () => {
      dataDir = dir('clinic-two-writers-')
      const first = await startChild({ DATA_DIR: dataDir, ...adminEnv })
      await failLogins(first.url, 2, 'common')
      await first.kill('SIGTERM')
      const copy = dir('clinic-two-writers-copy-')
      fs.cpSync(dataDir, copy, { recursive: true })
      const [a, b] = await Promise.all([
        startChild({ DATA_DIR: dataDir, ...adminEnv }),
        startChild({ DATA_DIR: copy, ...adminEnv })
      ])
      await Promise.all([failLogins(a.url, 3, 'first'), failLogins(b.url, 2, 'second')])
      await Promise.all([a.kill('SIGTERM'), b.kill('SIGTERM')])
      file = path.join(dataDir, 'audit-events.db')
      const mine = lines(file)
      const theirs = lines(path.join(copy, 'audit-events.db'))
      common = 0
      while (common < Math.min(mine.length, theirs.length) && mine[common] === theirs[common]) common++
      firstWriter = mine.slice(common).map((line) => JSON.parse(line))
      secondWriter = theirs.slice(common).map((line) => JSON.parse(line))
      assert.equal(firstWriter.length, 3)
      assert.equal(secondWriter.length, 2)
      assert.equal(firstWriter[0].seq, secondWriter[0].seq, 'both writers numbered from the same tail')
      const merged = [...mine.slice(0, common)]
      for (let i = 0; i < firstWriter.length; i++) {
        merged.push(JSON.stringify(firstWriter[i]))
        if (secondWriter[i]) merged.push(JSON.stringify(secondWriter[i]))
      }
      fs.writeFileSync(file, merged.join('\n') + '\n')
      corrupt = fs.readFileSync(file)
    })

    it('stops start-up with one line naming the file, the line, the index and the repair command; the file is left as it was', async () => {
      const failed = await failedStart({ DATA_DIR: dataDir })
      assert.equal(failed.code, 1)
      const [line, ...rest] = failed.output.split('\n').filter((text) => text.trim() !== '')
      assert.deepEqual(rest, [], failed.output)
      const seq = firstWriter[0].seq
      assert.equal(
        JSON.parse(line).msg,
        `Cannot load ${file}: line ${common + 2} repeats seq ${seq} of line ${common + 1} (unique index "seq"), which happens when two servers write to one DATA_DIR. Stop every server using ${dataDir}, then run: npm run store:repair -- ${file} (it keeps every document and reports what it changed)`
      )
      assert.ok(fs.readFileSync(file).equals(corrupt))
      assert.equal(
        fs.existsSync(path.join(dataDir, 'server.lock')),
        false,
        'the failed start released the lock'
      )
    })

    it('refuses to re-chain an event that does not match its hash, and changes nothing', async () => {
      const tampered = dir('clinic-tampered-')
      const target = path.join(tampered, 'audit-events.db')
      fs.writeFileSync(
        target,
        corrupt
          .toString('utf8')
          .replace(`"id":"${secondWriter[1].id}"`, `"id":"${secondWriter[1].id}","patient":"someone-else"`)
      )
      const before = fs.readFileSync(target)
      const result = await repair(target)
      assert.equal(result.code, 1)
      assert.match(
        result.stderr,
        new RegExp(
          `the event on line \\d+ \\(id ${secondWriter[1].id}, seq ${secondWriter[1].seq}\\) does not match its hash: it was changed, or an event before it removed — not what two writers leave\\. Nothing was changed`
        )
      )
      assert.ok(fs.readFileSync(target).equals(before))
      assert.deepEqual(fs.readdirSync(tampered), ['audit-events.db'], 'no backup, no new file')
    })

    it('store:repair keeps every event, re-chains the second writer’s after a store-repair event, and verify answers intact', async () => {
      const result = await repair(file)
      assert.equal(result.code, 0, result.stderr)
      const tail = firstWriter[firstWriter.length - 1].seq
      assert.ok(
        result.stdout.includes(
          `audit-events.db: 2 event(s) of a second writer shared seq ${secondWriter[0].seq}–${secondWriter[1].seq} with the chain (forked after seq ${secondWriter[0].seq - 1})`
        ),
        result.stdout
      )
      for (const [i, event] of secondWriter.entries())
        assert.ok(
          result.stdout.includes(`id ${event.id}: seq ${event.seq} -> ${tail + 2 + i}`),
          result.stdout
        )
      const backup = fs.readdirSync(dataDir).find((name) => name.startsWith('audit-events.db.before-repair-'))
      assert.ok(backup, 'the file as it was is kept')
      assert.ok(fs.readFileSync(path.join(dataDir, backup)).equals(corrupt))

      const server = await startChild({ DATA_DIR: dataDir, ...adminEnv })
      try {
        // Nothing runs beside a server of the folder.
        const refused = await repair(file)
        assert.equal(refused.code, 1)
        assert.match(
          refused.stderr,
          new RegExp(`DATA_DIR=${dataDir} is in use by another server \\(pid ${server.process.pid}`)
        )

        const login = await http(server.url, 'POST', '/authentication', { body: admin })
        const token = login.body.accessToken
        const verify = await http(server.url, 'GET', '/audit-events/verify', { token })
        assert.equal(verify.body.intact, true, JSON.stringify(verify.body))
        for (const line of corrupt.toString('utf8').split('\n').filter(Boolean)) {
          const original = JSON.parse(line)
          const kept = await http(server.url, 'GET', `/audit-events/${original.id}`, { token })
          assert.equal(kept.status, 200, `event ${original.id} kept`)
          assert.equal(kept.body.subject, original.subject)
          assert.equal(kept.body.at, original.at, 'its time as it was')
        }
        const repairs = await http(server.url, 'GET', '/audit-events?action=store-repair', { token })
        assert.equal(repairs.body.total, 1)
        const [event] = repairs.body.data
        assert.equal(event.seq, tail + 1)
        assert.deepEqual(
          event.ids,
          secondWriter.map((other) => other.id)
        )
        assert.match(
          event.subject,
          new RegExp(
            `re-chained 2 event\\(s\\) of a second writer after seq ${tail}, originally seq ${secondWriter[0].seq}–${secondWriter[1].seq}`
          )
        )
      } finally {
        await server.kill('SIGTERM')
      }
    })
  })

  describe('other collections', () => {
    it('names a duplicate unique value, and store:repair sets the later document aside and reports it', async () => {
      const dataDir = dir('clinic-duplicate-email-')
      let server = await startServer({ dataDir, mongodb: '' })
      const user = await signUp(server.url)
      await server.close({ keep: true })
      const accounts = path.join(dataDir, 'accounts.db')
      const mine = lines(accounts).find((line) => line.includes(user.email))!
      // Another document (its own `_id` and `id`) with the same email.
      const twin = JSON.stringify({
        ...JSON.parse(mine),
        _id: 'twinTwinTwinTwin',
        id: 'ffffffffffffffffffffffff'
      })
      fs.appendFileSync(accounts, twin + '\n')
      const twinLine = lines(accounts).length
      const firstLine = lines(accounts).findIndex((line) => line === mine) + 1

      await assert.rejects(startServer({ dataDir, mongodb: '' }), (error: Error) => {
        assert.ok(
          error.message.startsWith(
            `Cannot load ${accounts}: line ${twinLine} repeats email ${JSON.stringify(user.email)} of line ${firstLine} (unique index "email")`
          ),
          error.message
        )
        assert.ok(error.message.includes(`npm run store:repair -- ${accounts}`))
        return true
      })
      const result = await repair(accounts)
      assert.equal(result.code, 0, result.stderr)
      assert.ok(
        result.stdout.includes(
          `accounts.db: line ${twinLine} (_id "twinTwinTwinTwin") repeats email ${JSON.stringify(user.email)} of line ${firstLine}: set aside`
        ),
        result.stdout
      )
      const aside = fs.readdirSync(dataDir).find((name) => /^accounts\.db\.duplicates-.*\.db$/.test(name))!
      assert.equal(
        JSON.parse(lines(path.join(dataDir, aside))[0]).id,
        'ffffffffffffffffffffffff',
        'the later document is kept aside'
      )

      // Unreadable lines beyond the tolerated share: named, then set aside verbatim by repairing the whole folder.
      const organizations = path.join(dataDir, 'organizations.db')
      const readable = lines(organizations).length
      fs.appendFileSync(organizations, 'half a line\n{"broken":\n')
      await assert.rejects(startServer({ dataDir, mongodb: '' }), (error: Error) => {
        assert.ok(
          error.message.startsWith(
            `Cannot load ${organizations}: line ${readable + 1} is not a readable document (2 of ${readable + 2} lines, more than the 10% tolerated)`
          ),
          error.message
        )
        return true
      })
      const folder = await repair(dataDir)
      assert.equal(folder.code, 0, folder.stderr)
      assert.ok(
        folder.stdout.includes(
          `organizations.db: line ${readable + 1} is not a readable document: set aside verbatim`
        ),
        folder.stdout
      )
      assert.ok(folder.stdout.includes(`${accounts}: nothing to repair`), folder.stdout)
      const unreadable = fs
        .readdirSync(dataDir)
        .find((name) => /^organizations\.db\.unreadable-.*\.txt$/.test(name))!
      assert.deepEqual(lines(path.join(dataDir, unreadable)), ['half a line', '{"broken":'])

      server = await startServer({ dataDir, mongodb: '' })
      try {
        assert.equal(
          (
            await http(server.url, 'POST', '/authentication', {
              body: { email: user.email, password: user.password }
            })
          ).status,
          201
        )
      } finally {
        await server.close()
      }
    })
  })
})
