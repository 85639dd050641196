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
            const res = await http(first.url, 'POST', '/medical-records', { token: user.token, body: { ...validRecords.allergy, facility: undefined, patient: user.account.id, name: `Allergen ${i}` } })
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

  it('concurrent creates share file writes (batch mode)', async () => {
    const server = await startServer({ storeSync: 'batch' })
    try {
      const user = await signUp(server.url)
      const commit = storeEngineCommits(server.app).get('medical-records')
      assert.ok(commit, 'the medical-records file has a commit log')
      const before = { ...commit.stats }
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          http(server.url, 'POST', '/medical-records', { token: user.token, body: { ...validRecords.allergy, facility: undefined, patient: user.account.id, name: `A${i}` } })
        )
      )
      const operations = commit.stats.operations - before.operations
      const writes = commit.stats.writes - before.writes
      assert.equal(operations, 40)
      assert.ok(writes < operations, `expected shared writes, got ${writes} writes for ${operations} operations`)
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
