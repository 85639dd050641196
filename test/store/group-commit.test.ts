// The embedded engine's group commit (STORE_SYNC): in every mode, each write answered before a kill -9 is there
// after a restart — 60 concurrent creates from several accounts, killed the moment the last answer arrives —
// and concurrent writes really share file writes (fewer writes than operations). An unknown mode stops the start.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { http, signUp, startServer, tempDir } from '../helpers/app'
import { startServerProcess } from '../helpers/server-process'
import { validRecords } from '../fixtures/medical-records'
import { storeEngineCommits } from '../../src/store'

describe('embedded engine: group commit (STORE_SYNC)', function () {
  if (process.env.MONGODB_URL) return // (embedded engine only: MongoDB acknowledges its own writes)
  // (child-process start-ups compile the app: slow on a loaded machine)
  this.timeout(90000)
  const dirs: string[] = []
  after(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

  for (const mode of ['batch', 'os', 'always'] as const) {
    it(`STORE_SYNC=${mode}: every create answered before a kill -9 is kept`, async () => {
      const dataDir = tempDir()
      dirs.push(dataDir)
      const env = { DATA_DIR: dataDir, STORE_SYNC: mode }
      const first = await startServerProcess(env)
      const users = await Promise.all([1, 2, 3].map(() => signUp(first.url)))
      const answered: { id: string; token: string }[] = []
      try {
        await Promise.all(
          Array.from({ length: 60 }, async (_, i) => {
            const user = users[i % users.length]
            const res = await http(first.url, 'POST', '/medical-records', {
              token: user.token,
              body: {
                ...validRecords.allergy,
                facility: undefined,
                patient: user.account.id,
                name: `Allergen ${i}`
              }
            })
            assert.equal(res.status, 200, JSON.stringify(res.body))
            answered.push({ id: res.body.id, token: user.token })
          })
        )
      } finally {
        await first.kill('SIGKILL')
      }
      assert.equal(answered.length, 60)
      const second = await startServerProcess(env)
      try {
        for (const { id, token } of answered) {
          const res = await http(second.url, 'GET', `/medical-records/${id}`, { token })
          assert.equal(res.status, 200, `record ${id} answered before the kill is lost`)
        }
      } finally {
        await second.kill('SIGKILL')
      }
    })
  }

  it('concurrent writes share file writes (batch mode), each answered once its batch is synced', async () => {
    const server = await startServer({ storeSync: 'batch' })
    try {
      const commit = storeEngineCommits(server.app).get('medical-records')
      assert.ok(commit, 'the medical-records file has a commit log')
      const before = { ...commit.stats }
      // 40 writes issued together (as concurrent requests reach the store): their lines go out in a few writes.
      const store = server.app.service('medical-records' as any) as any // (cast: the store adapter by name, below the service's hooks)
      const created = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          store._create({ type: 'allergy', name: `A${i}`, patient: 'p', createdAt: Date.now() })
        )
      )
      const operations = commit.stats.operations - before.operations
      const writes = commit.stats.writes - before.writes
      assert.equal(operations, 40)
      assert.ok(
        writes < operations / 4,
        `expected shared writes, got ${writes} writes for ${operations} operations`
      )
      // Every answered write is in the data file already.
      const file = fs.readFileSync(`${server.dataDir}/medical-records.db`, 'utf8')
      for (const record of created)
        assert.ok(file.includes(record.id), `record ${record.id} answered but not in the file`)
    } finally {
      await server.close()
    }
  })

  it('a start-up reads the data file without rewriting it, and cuts a torn last line so later writes are kept', async () => {
    const dataDir = tempDir()
    dirs.push(dataDir)
    let server = await startServer({ dataDir })
    const user = await signUp(server.url)
    const create = async (name: string) => {
      const res = await http(server.url, 'POST', '/medical-records', {
        token: user.token,
        body: { ...validRecords.allergy, facility: undefined, patient: user.account.id, name }
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return res.body.id as string
    }
    const first = await create('Before the crash')
    await server.close({ keep: true })
    const file = `${dataDir}/medical-records.db`
    // A write cut short by a crash: half a line at the end of the file.
    fs.appendFileSync(file, '{"_id":"torn","type":"allergy","name":"half a li')
    server = await startServer({ dataDir })
    const second = await create('After the restart')
    assert.ok(!fs.readFileSync(file, 'utf8').includes('half a li'), 'the torn line is cut')
    await server.close({ keep: true })
    const before = fs.statSync(file)
    server = await startServer({ dataDir })
    try {
      const after = fs.statSync(file)
      assert.deepEqual(
        [after.ino, after.size, after.mtimeMs],
        [before.ino, before.size, before.mtimeMs],
        'the start-up did not rewrite the file'
      )
      for (const id of [first, second]) {
        const res = await http(server.url, 'GET', `/medical-records/${id}`, { token: user.token })
        assert.equal(res.status, 200, `record ${id} lost`)
      }
    } finally {
      await server.close()
    }
  })

  it('an unknown STORE_SYNC stops the start with a message naming it', async () => {
    const dataDir = tempDir()
    dirs.push(dataDir)
    const failed = await startServerProcess({ DATA_DIR: dataDir, STORE_SYNC: 'sometimes' }).then(
      async (server) => {
        await server.kill()
        return null
      },
      (error) => error
    )
    assert.ok(failed, 'the server must not start')
    assert.match(failed.output, /STORE_SYNC must be one of always, batch, os/)
  })
})
