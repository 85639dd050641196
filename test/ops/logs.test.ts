// Structured logs of the real server process: one JSON line per request (level, time, reqId, method, path,
// statusCode, responseTime, account) with the client's X-Request-Id echoed (or a new one), and never a token,
// password or code in the output.
import assert from 'node:assert/strict'
import net from 'node:net'
import { http, tempDir, uniqueEmail, waitUntil } from '../helpers/app'
import { startChild, type ChildServer } from '../helpers/child'

const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))

describe('structured request logs (server process)', function () {
  this.timeout(60_000)
  let child: ChildServer
  before(async () => {
    child = await startChild({ DATA_DIR: tempDir('clinic-logs-'), LOG_LEVEL: 'debug' })
  })
  after(async () => {
    await child?.kill('SIGTERM')
  })

  it('writes one JSON line per request with the client request id, echoed in the response', async () => {
    const res = await http(child.url, 'GET', '/organizations?name=Secret%20Clinic', {
      headers: { 'x-request-id': 'call-42' }
    })
    assert.equal(res.status, 401)
    assert.equal(res.headers.get('x-request-id'), 'call-42')
    await waitUntil(
      () => jsonLines(child.output()).some((line) => line.reqId === 'call-42'),
      5000,
      'the log line'
    )
    const line = jsonLines(child.output()).find((entry) => entry.reqId === 'call-42')
    assert.equal(line.level, 'info')
    assert.equal(typeof line.time, 'number')
    assert.equal(line.method, 'GET')
    assert.equal(line.path, '/organizations')
    assert.equal(line.statusCode, 401)
    assert.equal(typeof line.responseTime, 'number')
    assert.ok(!child.output().includes('Secret'), 'query values are not logged')
  })

  it('logs successful probes at debug level only', async () => {
    await http(child.url, 'GET', '/health/live', { headers: { 'x-request-id': 'probe-1' } })
    await waitUntil(
      () => jsonLines(child.output()).some((line) => line.reqId === 'probe-1'),
      5000,
      'the log line'
    )
    assert.equal(jsonLines(child.output()).find((entry) => entry.reqId === 'probe-1').level, 'debug')
  })

  it('makes a request id when none (or an unusable one) is sent', async () => {
    const res = await http(child.url, 'GET', '/health/live', {
      headers: { 'x-request-id': 'has spaces and "quotes"' }
    })
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
  })

  it('names the account of an authenticated request and never logs passwords, tokens or codes', async () => {
    const email = uniqueEmail('logs')
    const password = 'Very secret passphrase 1'
    assert.equal((await http(child.url, 'POST', '/accounts', { body: { email, password } })).status, 201)
    const login = await http(child.url, 'POST', '/authentication', { body: { email, password } })
    const token: string = login.body.accessToken
    const id: string = login.body.account.id
    await http(child.url, 'GET', `/accounts/${id}`, {
      token,
      headers: { 'x-request-id': 'read-own-account' }
    })
    await http(child.url, 'POST', '/authentication', {
      token,
      body: { action: 'applyActionCode', code: 'ABCDEFGH-12345678' }
    })
    await waitUntil(
      () => jsonLines(child.output()).some((line) => line.reqId === 'read-own-account'),
      5000,
      'the log line'
    )
    const line = jsonLines(child.output()).find((entry) => entry.reqId === 'read-own-account')
    assert.equal(line.account, id)
    assert.equal(line.statusCode, 200)
    const output = child.output()
    assert.ok(!output.includes(password), 'password logged')
    assert.ok(!output.includes(token), 'token logged')
    assert.ok(!output.includes('ABCDEFGH-12345678'), 'code logged')
    assert.ok(!output.includes(email), 'email (record content) logged')
  })

  it('logs out with the token in the path (Feathers logout) without writing the token into the log', async () => {
    const email = uniqueEmail('logout')
    const password = 'Another secret passphrase 2'
    assert.equal((await http(child.url, 'POST', '/accounts', { body: { email, password } })).status, 201)
    const token: string = (await http(child.url, 'POST', '/authentication', { body: { email, password } }))
      .body.accessToken
    const out = await http(child.url, 'DELETE', `/authentication/${token}`, {
      token,
      headers: { 'x-request-id': 'logout-in-path' }
    })
    assert.equal(out.status, 200, JSON.stringify(out.body))
    assert.equal(out.body.authentication.strategy, 'jwt')
    // A token in the path of any other request is not logged either.
    await http(child.url, 'GET', `/accounts/${token}`, { token, headers: { 'x-request-id': 'token-as-id' } })
    await waitUntil(
      () => jsonLines(child.output()).some((line) => line.reqId === 'token-as-id'),
      5000,
      'the log lines'
    )
    const line = jsonLines(child.output()).find((entry) => entry.reqId === 'logout-in-path')
    assert.equal(line.path, '/authentication/[redacted]')
    assert.equal(line.statusCode, 200)
    assert.equal(
      jsonLines(child.output()).find((entry) => entry.reqId === 'token-as-id').path,
      '/accounts/[redacted]'
    )
    assert.ok(!child.output().includes(token.split('.')[1]), 'token logged')
  })

  it('logs a client that hangs up during a response as one debug line, without a stack', async () => {
    // A large file (the Swagger UI bundle, 1.7 MB) asked for 20 times on one connection (pipelined, so more than
    // the loopback buffers hold), never read by the client, which then closes the connection.
    const socket = net.connect(child.port, '127.0.0.1')
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    socket.pause()
    socket.write(
      'GET /docs/swagger-ui-bundle.js HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: hang-up-1\r\n\r\n'.repeat(
        20
      )
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    socket.destroy()
    await waitUntil(
      () => jsonLines(child.output()).some((line) => line.reqId === 'hang-up-1' && line.level === 'debug'),
      5000,
      'the debug line'
    )
    const lines = jsonLines(child.output()).filter((line) => line.reqId === 'hang-up-1')
    const debug = lines.filter((line) => line.level === 'debug')
    for (const line of debug) {
      assert.match(line.msg, /client closed the connection/)
      assert.ok(
        ['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE'].includes(line.errorCode),
        line.errorCode
      )
    }
    assert.ok(!lines.some((line) => line.level === 'error' || line.err), JSON.stringify(lines))
    assert.doesNotMatch(child.output(), /^\s+at .*\(.*:\d+:\d+\)$/m)
  })

  it('formats the same lines for people in development (pino-pretty), with the request fields', async () => {
    const dev = await startChild({
      NODE_ENV: 'development',
      DATA_DIR: tempDir('clinic-logs-dev-'),
      LOG_LEVEL: 'info',
      LOG_FORMAT: ''
    })
    try {
      await http(dev.url, 'GET', '/organizations', { headers: { 'x-request-id': 'dev-line-1' } })
      await waitUntil(() => dev.output().includes('dev-line-1'), 5000, 'the log line')
      const output = dev.output()
      assert.match(output, /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: GET \/organizations 401$/m)
      assert.match(output, /^\s+reqId: "dev-line-1"$/m)
      assert.match(output, /^\s+statusCode: 401$/m)
      assert.ok(!output.split('\n').some((line) => line.startsWith('{')), 'no JSON lines in development')
    } finally {
      await dev.kill('SIGTERM')
    }
  })
})
