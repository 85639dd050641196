// Start-up as an operator sees it, on the real server process: a failure the operator can fix (the port taken, a
// bad PORT, Redis or MongoDB out of reach or misspelt) is one log line naming the setting and the fix, with no
// stack, and the process exits 1; in production every line is JSON, and the start line names the console, the API
// docs and the readiness probe.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import net from 'node:net'
import { http, tempDir, waitUntil } from '../helpers/app'
import { findStartLine, startServerProcess } from '../helpers/server-process'

interface Failed {
  code: number
  output: string
}

/** Starts the server with `env` and expects it to stop: its exit code and everything it wrote. */
const failedStart = async (env: Record<string, string>): Promise<Failed> => {
  const result = await startServerProcess(
    { DATA_DIR: tempDir('clinic-startup-'), MONGODB_URL: '', REDIS_URL: '', ...env },
    60_000
  ).then(
    async (server) => {
      await server.kill()
      return null
    },
    (error: Failed) => error
  )
  assert.ok(result, `the server must not start with ${JSON.stringify(env)}`)
  return result
}

/** The output's lines, each parsed as JSON (all of them must be). */
const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line)
      } catch {
        assert.fail(`not a JSON line: ${line}`)
      }
    })

/** Asserts that the process exited 1 after exactly one error line, `expected`, without a stack. */
const assertOneLine = (failed: Failed, expected: string | RegExp) => {
  assert.equal(failed.code, 1, failed.output)
  const errors = jsonLines(failed.output).filter((line) => line.level === 'error' || line.level === 'fatal')
  assert.equal(errors.length, 1, failed.output)
  if (typeof expected === 'string') assert.equal(errors[0].msg, expected)
  else assert.match(errors[0].msg, expected)
  assert.equal(errors[0].err, undefined, 'no error object (and stack) attached')
  assert.doesNotMatch(failed.output, /^\s+at .*:\d+:\d+\)?$/m, 'no stack trace')
}

/** A loopback port nothing listens on (bound, then released). */
const closedPort = async () => {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('start-up failures: one line naming the setting and the fix, then exit 1', function () {
  this.timeout(120_000)

  it('names the port in use and says to choose a free one', async () => {
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as net.AddressInfo
    try {
      assertOneLine(
        await failedStart({ PORT: String(port) }),
        `PORT ${port} is in use (another server?); set PORT to a free port`
      )
    } finally {
      taken.close()
    }
  })

  it('names the PORT value that is not a number', async () => {
    assertOneLine(
      await failedStart({ PORT: 'abc' }),
      'Invalid configuration: PORT must be a number (setting port, got "abc")'
    )
  })

  it('names a JSON variable that is not JSON (read while the configuration loads)', async () => {
    assertOneLine(
      await failedStart({ GATEWAYS: 'notjson' }),
      /^GATEWAYS must be JSON \(.+\); fix the value or unset it$/
    )
  })

  it('names a REDIS_URL nothing answers on, and the choices', async () => {
    const port = await closedPort()
    assertOneLine(
      await failedStart({ REDIS_URL: `redis://127.0.0.1:${port}` }),
      `Redis at REDIS_URL redis://127.0.0.1:${port} could not be reached (connect ECONNREFUSED 127.0.0.1:${port}); start Redis or set REDIS_URL to a server this host can reach, or leave it empty to run one instance without Redis`
    )
  })

  it('refuses a REDIS_URL that is not a Redis URL, without showing its password', async () => {
    assertOneLine(
      await failedStart({ REDIS_URL: 'localhost:6379' }),
      /^REDIS_URL .*is not a Redis URL .*; set it to redis:\/\/host:6379 \(rediss:\/\/ for TLS\), or leave it empty/
    )
    const failed = await failedStart({ REDIS_URL: 'https://admin:hunter2@cache.example:6379' })
    assertOneLine(
      failed,
      'REDIS_URL https://admin:***@cache.example:6379/ is not a Redis URL (it starts with https://); set it to redis://host:6379 (rediss:// for TLS), or leave it empty to run one instance without Redis'
    )
    assert.doesNotMatch(failed.output, /hunter2/)
  })

  it('names a MONGODB_URL nothing answers on within MONGODB_CONNECT_TIMEOUT_MS', async () => {
    const port = await closedPort()
    assertOneLine(
      await failedStart({
        MONGODB_URL: `mongodb://127.0.0.1:${port}/clinic`,
        MONGODB_CONNECT_TIMEOUT_MS: '300'
      }),
      new RegExp(
        `^MongoDB at MONGODB_URL mongodb://127\\.0\\.0\\.1:${port}/clinic could not be reached within 300 ms \\(.*ECONNREFUSED.*\\); start MongoDB or set MONGODB_URL to a server this host can reach \\(MONGODB_CONNECT_TIMEOUT_MS sets the wait\\)$`
      )
    )
  })

  it('refuses a MONGODB_URL that is not a connection string', async () => {
    assertOneLine(
      await failedStart({ MONGODB_URL: 'postgres://db.example/clinic' }),
      /^MONGODB_URL is not a MongoDB connection string \(.+\); set it to mongodb:\/\/host:27017\/clinic \(or mongodb\+srv:\/\/…\), or leave it empty for the embedded engine$/
    )
  })

  it('refuses a MONGODB_CONNECT_TIMEOUT_MS that is not a positive number', async () => {
    assertOneLine(
      await failedStart({ MONGODB_CONNECT_TIMEOUT_MS: '0' }),
      'Invalid configuration: MONGODB_CONNECT_TIMEOUT_MS must be > 0 (setting mongodbConnectTimeoutMs, got 0)'
    )
  })
})

describe('start line and production logs', function () {
  this.timeout(120_000)

  it('in production writes only JSON lines, and the start line names the console, the API docs and the readiness probe', async () => {
    const server = await startServerProcess(
      {
        NODE_ENV: 'production',
        LOG_LEVEL: 'debug',
        DATA_DIR: tempDir('clinic-startup-prod-'),
        MONGODB_URL: '',
        AUTH_SECRET: randomBytes(32).toString('hex'),
        ALLOW_SANDBOX_PAYMENTS: 'true'
      },
      60_000
    )
    let stopped = false
    try {
      const start = findStartLine(server.output())
      assert.ok(start?.urls, server.output())
      const base = `http://127.0.0.1:${server.port}`
      assert.deepEqual(start.urls, {
        console: `${base}/`,
        docs: `${base}/docs`,
        ready: `${base}/health/ready`
      })
      for (const url of Object.values(start.urls)) assert.equal((await fetch(url)).status, 200, url)
      assert.equal((await http(server.url, 'GET', '/no-such-path')).status, 404)
      await server.kill('SIGTERM')
      stopped = true
      await waitUntil(() => server.output().includes('Shutdown complete'), 5000, 'the last line')
      const lines = jsonLines(server.output())
      assert.ok(lines.some((line) => line.msg === 'Shutdown complete'))
      const startLine = lines.find((line) => line.urls)
      assert.equal(startLine.level, 'info')
      assert.equal(startLine.port, server.port)
      assert.equal(
        startLine.msg,
        `Listening on ${base}: console ${base}/, API docs ${base}/docs, readiness ${base}/health/ready`
      )
    } finally {
      if (!stopped) await server.kill('SIGTERM')
    }
  })

  it('writes the start line whatever LOG_LEVEL says, with localhost for a server listening on every interface', async () => {
    const server = await startServerProcess(
      { LOG_LEVEL: 'error', HOST: '0.0.0.0', DATA_DIR: tempDir('clinic-startup-quiet-'), MONGODB_URL: '' },
      60_000
    )
    try {
      const lines = jsonLines(server.output())
      assert.equal(lines.length, 1, server.output())
      assert.equal(lines[0].urls.ready, `http://localhost:${server.port}/health/ready`)
    } finally {
      await server.kill('SIGTERM')
    }
  })
})
