import assert from 'node:assert/strict'
import { startServer, http, type TestServer } from './helpers/app'
import { toFeathersError } from '../src/http'

describe('HTTP transport', () => {
  let server: TestServer
  before(async () => {
    server = await startServer({ bodyLimit: '2kb' })
  })
  after(() => server.close())

  it('serves the landing page at /', async () => {
    const res = await fetch(`${server.url}/`)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /text\/html/)
    assert.match(await res.text(), /Clinic back end/)
  })

  it('answers malformed JSON with a Feathers 400', async () => {
    const res = await http(server.url, 'POST', '/accounts', {
      raw: '{"email": ',
      headers: { 'content-type': 'application/json' }
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.name, 'BadRequest')
    assert.equal(res.body.stack, undefined)
  })

  it('answers a body over the size limit with 413', async () => {
    const res = await http(server.url, 'POST', '/accounts', {
      body: { email: 'big@example.test', password: 'x'.repeat(5000) }
    })
    assert.equal(res.status, 413)
    assert.equal(res.body.name, 'PayloadTooLarge')
  })

  it('answers a body that is not JSON with 415', async () => {
    const res = await http(server.url, 'POST', '/accounts', {
      raw: 'email=a@b.test',
      headers: { 'content-type': 'application/x-www-form-urlencoded' }
    })
    assert.equal(res.status, 415)
    assert.equal(res.body.name, 'UnsupportedMediaType')
  })

  it('answers an unknown path with a JSON 404', async () => {
    const res = await http(server.url, 'GET', '/no-such-service')
    assert.equal(res.status, 404)
    assert.equal(res.body.name, 'NotFound')
  })

  it('answers a JSON array body with 400, not 500', async () => {
    const res = await http(server.url, 'POST', '/accounts', {
      body: [{ email: 'a@b.test', password: 'long enough pw' }]
    })
    assert.equal(res.status, 400)
  })

  it('refuses methods a service does not offer with 405', async () => {
    const res = await http(server.url, 'PUT', '/accounts/abc', { body: { email: 'a@b.test' } })
    assert.equal(res.status, 405)
  })

  /** Runs `fn` and returns what the app wrote to stderr meanwhile (the logger writes errors there). */
  const stderrDuring = async (fn: () => Promise<void>) => {
    const written: string[] = []
    const original = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: any[]) => {
      written.push(String(chunk))
      return original(chunk, ...rest)
    }) as typeof process.stderr.write
    try {
      await fn()
    } finally {
      process.stderr.write = original
    }
    return written.join('')
  }

  it('answers traversal, backslash and NUL paths with a JSON 404, logging no error', async () => {
    const paths = [
      '/..%2F..%2Fetc%2Fpasswd',
      '/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/..%5c..%5cetc%5cpasswd',
      '/index.html%00',
      '/%00',
      '/a%00b.txt',
      '/%E0%A4%A'
    ]
    const logged = await stderrDuring(async () => {
      for (const path of paths) {
        for (const method of ['GET', 'HEAD']) {
          const res = await http(server.url, method, path)
          assert.equal(res.status, 404, `${method} ${path}`)
          if (method === 'GET') {
            assert.equal(res.body.name, 'NotFound', path)
            assert.equal(res.body.stack, undefined)
            assert.doesNotMatch(JSON.stringify(res.body), /root:|passwd/)
          }
        }
      }
    })
    assert.doesNotMatch(logged, /Unhandled request error|Forbidden/)
  })

  it('keeps the client status of http-errors it does not know (never a 500)', async () => {
    const forbidden = Object.assign(new Error('Forbidden'), { status: 403, expose: true })
    assert.deepEqual([toFeathersError(forbidden).code, toFeathersError(forbidden).name], [403, 'Forbidden'])
    const rangeError = Object.assign(new Error('Range Not Satisfiable'), { statusCode: 416, expose: true })
    assert.equal(toFeathersError(rangeError).code, 416)
    const hidden = Object.assign(new Error('secret detail'), { status: 409, expose: false })
    assert.deepEqual([toFeathersError(hidden).code, toFeathersError(hidden).message], [409, 'Bad request'])
  })
})
