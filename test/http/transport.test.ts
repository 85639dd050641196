import assert from 'node:assert/strict'
import { startServer, http, type TestServer } from '../helpers/app'

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
    const res = await http(server.url, 'POST', '/accounts', { raw: '{"email": ', headers: { 'content-type': 'application/json' } })
    assert.equal(res.status, 400)
    assert.equal(res.body.name, 'BadRequest')
    assert.equal(res.body.stack, undefined)
  })

  it('answers a body over the size limit with 413', async () => {
    const res = await http(server.url, 'POST', '/accounts', { body: { email: 'big@example.test', password: 'x'.repeat(5000) } })
    assert.equal(res.status, 413)
    assert.equal(res.body.name, 'PayloadTooLarge')
  })

  it('answers a body that is not JSON with 415', async () => {
    const res = await http(server.url, 'POST', '/accounts', { raw: 'email=a@b.test', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    assert.equal(res.status, 415)
    assert.equal(res.body.name, 'UnsupportedMediaType')
  })

  it('answers an unknown path with a JSON 404', async () => {
    const res = await http(server.url, 'GET', '/no-such-service')
    assert.equal(res.status, 404)
    assert.equal(res.body.name, 'NotFound')
  })

  it('answers a JSON array body with 400, not 500', async () => {
    const res = await http(server.url, 'POST', '/accounts', { body: [{ email: 'a@b.test', password: 'long enough pw' }] })
    assert.equal(res.status, 400)
  })

  it('refuses methods a service does not offer with 405', async () => {
    const res = await http(server.url, 'PUT', '/accounts/abc', { body: { email: 'a@b.test' } })
    assert.equal(res.status, 405)
  })
})
