// GET /console/config.json: the browser console's OAuth buttons come from here — only providers with a client id,
// never a client secret; with none configured the list is empty (and the console shows no button).
import assert from 'node:assert/strict'
import { startServer, http, type TestServer } from '../helpers/app'

describe('GET /console/config.json', () => {
  let server: TestServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('lists no OAuth provider when none is configured', async () => {
    server = await startServer()
    const res = await http(server.url, 'GET', '/console/config.json')
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { oauth: [] })
  })

  it('lists only the configured providers, with their client id and authorization address, and no secret', async () => {
    server = await startServer({
      oauth: {
        google: {
          clientId: '',
          clientSecret: '',
          tokenURL: 'http://127.0.0.1:9/token',
          profileURL: 'http://127.0.0.1:9/me',
          timeoutMs: 1000
        },
        facebook: {
          clientId: 'facebook-client',
          clientSecret: 'facebook-secret',
          tokenURL: 'http://127.0.0.1:9/token',
          profileURL: 'http://127.0.0.1:9/me',
          timeoutMs: 1000
        }
      }
    })
    const res = await http(server.url, 'GET', '/console/config.json')
    assert.equal(res.status, 200)
    assert.deepEqual(
      res.body.oauth.map((p: any) => [p.provider, p.clientId, p.scope]),
      [['facebook', 'facebook-client', 'email']]
    )
    assert.match(res.body.oauth[0].authorizeURL, /^https:\/\//)
    assert.doesNotMatch(JSON.stringify(res.body), /facebook-secret/)
  })
})
