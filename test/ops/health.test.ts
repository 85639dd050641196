// Probes as Kubernetes uses them: /health/live answers while the process runs; /health/ready only once the store
// answers, its indexes are built and start-up recovery finished (503 before that and while shutting down —
// the shutdown case is in shutdown.test.ts).
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { createApp } from '../../src/app'
import { http, startServer, tempDir, type TestServer } from '../helpers/app'

describe('health probes', () => {
  let server: TestServer
  before(async () => {
    server = await startServer()
  })
  after(async () => {
    await server.close()
  })

  it('answers GET /health/live with 200 {status: ok}', async () => {
    const res = await http(server.url, 'GET', '/health/live')
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { status: 'ok' })
    assert.equal(res.headers.get('cache-control'), 'no-store')
  })

  it('answers GET /health/ready with 200 once the store, its indexes and start-up recovery are ready', async () => {
    const res = await http(server.url, 'GET', '/health/ready')
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, {
      status: 'ready',
      checks: { store: 'ok', indexes: 'ok', recovery: 'ok', phase: 'ready', payments: 'sandbox' }
    })
  })

  it('answers readiness 503 while the store cannot be reached and start-up has not finished; liveness stays 200', async () => {
    // MongoDB on a closed port: start-up waits for the indexes until server selection gives up.
    const app = createApp({
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      dataDir: tempDir(),
      mongodb: 'mongodb://127.0.0.1:1/clinic?serverSelectionTimeoutMS=4000'
    })
    const starting = app.listen(0, '127.0.0.1').catch((error: Error) => error)
    const listener = app.server as Server
    await new Promise<void>((resolve) =>
      listener.listening ? resolve() : listener.once('listening', () => resolve())
    )
    const address = listener.address()
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    try {
      const ready = await http(url, 'GET', '/health/ready')
      assert.equal(ready.status, 503)
      assert.equal(ready.body.status, 'starting')
      assert.deepEqual(ready.body.checks, {
        store: 'unreachable',
        indexes: 'building',
        recovery: 'running',
        phase: 'starting',
        payments: 'sandbox'
      })
      assert.equal((await http(url, 'GET', '/health/live')).status, 200)
    } finally {
      assert.ok((await starting) instanceof Error, 'start-up should fail without a store')
      listener.closeAllConnections()
      await new Promise((resolve) => listener.close(resolve))
    }
  })

  it('answers other methods on the probe paths like any unknown route (404)', async () => {
    const res = await http(server.url, 'POST', '/health/ready', { body: {} })
    assert.equal(res.status, 404)
  })
})
