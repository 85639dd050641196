// Graceful shutdown of the real server process: SIGTERM with a Socket.IO client connected and a request in
// flight. The request finishes, readiness answers 503 meanwhile, the socket is disconnected, the process exits 0
// within the grace period, and what the request wrote is there after a restart on the same data.
import assert from 'node:assert/strict'
import net from 'node:net'
import { io } from 'socket.io-client'
import { http, signUp, tempDir, testMongoUrl, uniqueEmail, waitUntil } from '../helpers/app'
import { startChild } from '../helpers/child'
import { startWebhookReceiver } from '../helpers/webhook-receiver'

/** A raw HTTP/1.1 connection: send bytes when the test says so, read the whole answer once the server closes or answers. */
const rawConnection = async (port: number) => {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => socket.once('connect', () => resolve()).once('error', reject))
  let received = ''
  socket.on('data', (chunk) => (received += chunk.toString()))
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.on('error', () => undefined)
  return {
    write: (text: string) => new Promise<void>((resolve) => socket.write(text, () => resolve())),
    /** Resolves with the status code and body of the first response. */
    async response(): Promise<{ status: number; body: any; raw: string }> {
      await waitUntil(
        () => /\r\n\r\n/.test(received) && responseComplete(received),
        10_000,
        'a response'
      ).catch(() => closed)
      const [head, body = ''] = received.split('\r\n\r\n')
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0)
      let parsed: any = body
      try {
        parsed = JSON.parse(body)
      } catch {
        // not JSON
      }
      return { status, body: parsed, raw: received }
    },
    close: () => socket.destroy()
  }
}

const responseComplete = (text: string) => {
  const [head, body = ''] = text.split('\r\n\r\n')
  const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN)
  return Number.isFinite(length) && Buffer.byteLength(body) >= length
}

describe('graceful shutdown (SIGTERM to the server process)', function () {
  this.timeout(60_000)
  const graceMs = 5000

  it('finishes the request in flight, answers readiness 503, disconnects sockets and exits 0 within the grace period, keeping the data', async () => {
    const dataDir = tempDir('clinic-shutdown-')
    const mongodb = testMongoUrl()
    const env = { DATA_DIR: dataDir, MONGODB_URL: mongodb, SHUTDOWN_GRACE_MS: String(graceMs) }
    const child = await startChild(env)

    assert.equal((await http(child.url, 'GET', '/health/ready')).status, 200)

    // A Socket.IO client stays connected (this alone kept the old server alive).
    const socket = io(child.url, { transports: ['websocket'], forceNew: true, reconnection: false })
    await new Promise<void>((resolve, reject) =>
      socket.once('connect', () => resolve()).once('connect_error', reject)
    )
    let disconnected = false
    socket.on('disconnect', () => (disconnected = true))

    // A sign-up in flight: headers and half the body are sent before the signal, the rest after it.
    const email = uniqueEmail('shutdown')
    const password = 'correct horse battery'
    const body = JSON.stringify({ email, password, firstName: 'Grace' })
    const signUp = await rawConnection(child.port)
    await signUp.write(
      `POST /accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`
    )
    // A readiness probe whose request line is already on the wire (the connection is busy, not idle).
    const probe = await rawConnection(child.port)
    await probe.write('GET /health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    await new Promise((resolve) => setTimeout(resolve, 300))

    const signalled = Date.now()
    child.process.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await probe.write('\r\n')
    const ready = await probe.response()
    assert.equal(ready.status, 503, ready.raw)
    assert.equal(ready.body.checks.phase, 'stopping')

    await signUp.write(body.slice(10))
    const created = await signUp.response()
    assert.equal(created.status, 201, created.raw)
    assert.equal(created.body.email, email)

    const exit = await child.exited
    const tookMs = Date.now() - signalled
    assert.deepEqual(exit, { code: 0, signal: null }, child.output())
    assert.ok(tookMs < graceMs, `exited after ${tookMs} ms, grace period ${graceMs} ms`)
    await waitUntil(() => disconnected, 2000, 'the socket to be disconnected')
    socket.close()
    signUp.close()
    probe.close()

    // Restarted on the same data: the account written by the request in flight logs in.
    const again = await startChild(env)
    try {
      const login = await http(again.url, 'POST', '/authentication', { body: { email, password } })
      assert.equal(login.status, 201, JSON.stringify(login.body))
      assert.equal(login.body.account.firstName, 'Grace')
    } finally {
      await again.kill('SIGTERM')
    }
  })

  it('exits 0 on SIGINT too, with a Socket.IO client connected', async () => {
    const child = await startChild({
      DATA_DIR: tempDir('clinic-shutdown-'),
      MONGODB_URL: testMongoUrl(),
      SHUTDOWN_GRACE_MS: String(graceMs)
    })
    const socket = io(child.url, { transports: ['websocket'], forceNew: true, reconnection: false })
    await new Promise<void>((resolve, reject) =>
      socket.once('connect', () => resolve()).once('connect_error', reject)
    )
    const signalled = Date.now()
    const exit = await child.kill('SIGINT')
    assert.deepEqual(exit, { code: 0, signal: null }, child.output())
    assert.ok(Date.now() - signalled < graceMs)
    socket.close()
  })

  it('lets a webhook attempt in flight finish and records it before the store closes', async () => {
    const receiver = await startWebhookReceiver()
    receiver.respondWith(() => ({ status: 200, afterMs: 1000 }))
    const dataDir = tempDir('clinic-shutdown-')
    const env = { DATA_DIR: dataDir, MONGODB_URL: testMongoUrl(), SHUTDOWN_GRACE_MS: String(graceMs) }
    const child = await startChild(env)
    try {
      const owner = await signUp(child.url, { organization: { name: 'Shutdown Clinic', type: 'facility' } })
      const webhook = await http(child.url, 'POST', '/webhook-events', {
        token: owner.token,
        body: {
          organization: owner.organization.id,
          url: receiver.url,
          events: 'organizations.patch',
          active: true
        }
      })
      assert.equal(webhook.status, 201, JSON.stringify(webhook.body))
      const ping = await http(child.url, 'POST', '/webhook-events', {
        token: owner.token,
        body: { webhook: webhook.body.id, event: 'ping' }
      })
      assert.equal(ping.status, 201, JSON.stringify(ping.body))
      // The receiver has the POST and answers in a second: the attempt is in flight when the signal arrives.
      await receiver.waitForCount(1, 10_000)
      const signalled = Date.now()
      const exit = await child.kill('SIGTERM')
      assert.deepEqual(exit, { code: 0, signal: null }, child.output())
      assert.ok(Date.now() - signalled < graceMs)

      const again = await startChild(env)
      try {
        const login = await http(again.url, 'POST', '/authentication', {
          body: { email: owner.email, password: owner.password }
        })
        const deliveries = await http(again.url, 'GET', `/webhook-events?webhook=${webhook.body.id}`, {
          token: login.body.accessToken
        })
        assert.equal(deliveries.status, 200)
        const delivered = deliveries.body.data.find((delivery: any) => delivery.id === ping.body.id)
        assert.equal(delivered.status, 'delivered', JSON.stringify(delivered))
        assert.equal(delivered.attempts, 1)
        await new Promise((resolve) => setTimeout(resolve, 500))
        assert.equal(receiver.received.length, 1, 'not sent again after the restart')
      } finally {
        await again.kill('SIGTERM')
      }
    } finally {
      await child.kill('SIGKILL')
      await receiver.close()
    }
  })
})
