// Journal-first collections of the embedded engine (the audit trail's): an append is a line in the data file,
// read back into the queried copy at the next read. A torn last line (a write cut short by a crash, never
// answered) is cut at start and the rest is kept; retention rewrites the file, and what it removed stays
// removed after a restart; the chain verifies throughout.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { http, signUp, startServer, tempDir, type TestServer } from '../helpers/app'
import { auditLog } from '../../src/audit/log'

const admin = { email: 'journal-admin@example.test', password: 'Admin password 1' }

const adminToken = async (server: TestServer) =>
  (await http(server.url, 'POST', '/authentication', { body: admin })).body.accessToken as string

const verify = async (server: TestServer) => {
  const res = await http(server.url, 'GET', '/audit-events/verify', { token: await adminToken(server) })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body as { intact: boolean; checked: number; brokenAt?: string }
}

const events = async (server: TestServer) => {
  const res = await http(server.url, 'GET', '/audit-events?$limit=200&$sort[seq]=1', {
    token: await adminToken(server)
  })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body as { total: number; data: { id: string; seq: number; at: number }[] }
}

/** A user who creates a record and reads it `reads` times: audit events (login, create, reads). */
const activity = async (server: TestServer, reads: number) => {
  const user = await signUp(server.url)
  const rec = await http(server.url, 'POST', '/medical-records', {
    token: user.token,
    body: { type: 'allergy', patient: user.account.id, name: 'Dust' }
  })
  assert.equal(rec.status, 200, JSON.stringify(rec.body))
  for (let i = 0; i < reads; i++)
    assert.equal(
      (await http(server.url, 'GET', `/medical-records/${rec.body.id}`, { token: user.token })).status,
      200
    )
  return { user, record: rec.body.id as string }
}

describe('embedded engine: journal-first collections (the audit trail)', function () {
  if (process.env.MONGODB_URL) return // (embedded engine only: on MongoDB the audit trail is an ordinary collection)
  this.timeout(60000)
  const dirs: string[] = []
  after(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

  it('writes each event to the data file before answering, and indexes it at the next read', async () => {
    const dataDir = tempDir()
    dirs.push(dataDir)
    const server = await startServer({ dataDir, admin })
    try {
      const file = path.join(dataDir, 'audit-events.db')
      const lines = () =>
        (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '')
          .split('\n')
          .filter((line) => line.includes('"seq"')).length
      const before = lines()
      const { user, record } = await activity(server, 3)
      // login, create, three reads: each line is in the file when its request is answered
      assert.equal(lines() - before, 5)
      const mine = await http(server.url, 'GET', `/audit-events?actor=${user.account.id}&$limit=50`, {
        token: user.token
      })
      assert.equal(mine.status, 200)
      assert.deepEqual(
        mine.body.data
          .filter((event: { service: string }) => event.service === 'medical-records')
          .map((event: { action: string; ids: string[] }) => [event.action, event.ids]),
        [
          ['read', [record]],
          ['read', [record]],
          ['read', [record]],
          ['create', [record]]
        ]
      )
    } finally {
      await server.close()
    }
  })

  it('cuts a torn last line at start (a write cut short by a crash) and keeps every answered event', async () => {
    const dataDir = tempDir()
    dirs.push(dataDir)
    let server = await startServer({ dataDir, admin })
    await activity(server, 2)
    const { total } = await events(server)
    await server.close({ keep: true })

    const file = path.join(dataDir, 'audit-events.db')
    fs.appendFileSync(file, '{"id":"torn","seq":999999,"actor":"x","hash":"ab')
    server = await startServer({ dataDir, admin })
    try {
      assert.ok(fs.readFileSync(file, 'utf8').endsWith('\n'), 'the torn line is cut')
      const after = await events(server)
      // the events of before, plus this admin login
      assert.equal(after.total, total + 1)
      assert.ok(after.data.every((event) => event.id !== 'torn'))
      await activity(server, 1)
      const checked = await verify(server)
      assert.equal(checked.intact, true, JSON.stringify(checked))
      assert.equal(checked.checked, (await events(server)).total - 1) // (less the login of that last listing)
    } finally {
      await server.close({ keep: true })
    }
    server = await startServer({ dataDir, admin })
    try {
      assert.equal((await verify(server)).intact, true)
    } finally {
      await server.close()
    }
  })

  it('retention rewrites the file: removed events stay removed after a restart, and the kept chain verifies', async () => {
    const dataDir = tempDir()
    dirs.push(dataDir)
    let server = await startServer({ dataDir, admin })
    await activity(server, 8)
    const all = await events(server)
    assert.ok(all.data.length >= 10)
    const log = auditLog(server.app)!
    // As if the period ended right after the sixth event's time: the events stamped before it go.
    const removed = await log.applyRetention(all.data[5].at + log.settings.retentionDays * 86400000)
    assert.ok(removed >= 1)
    const kept = await events(server)
    await activity(server, 1) // appends after the rewrite go to the new file
    await server.close({ keep: true })

    server = await startServer({ dataDir, admin })
    try {
      const after = await events(server)
      assert.equal(after.data[0].seq, kept.data[0].seq, 'the removed events did not come back')
      assert.ok(after.data[0].seq > all.data[0].seq)
      assert.ok(after.total > kept.total, 'the appends after the rewrite are kept')
      const checked = await verify(server)
      assert.equal(checked.intact, true, JSON.stringify(checked))
    } finally {
      await server.close()
    }
  })
})
