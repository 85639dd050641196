// Authentication throughput against a baseline measured in the same run: an authenticated GET of one's own
// account (JWT check + one read). Compared: password login (bcrypt-bound by design), google login against a
// loopback OAuth server (two provider round trips + account lookup), applying an unknown action code (the
// selector lookup and the rate-limit bookkeeping), and a password login refused by the per-email limit (429).
const autocannon = require('autocannon')
import { startServer, signUp } from '../test/helpers/app'
import { startOAuthServer } from '../test/helpers/oauth-server'
import { jsonHeaders, round } from './lib'

const DURATION = 4
const CONNECTIONS = 10

// In process, unlike the other benches' load (bench/lib.ts measureLoad): each google login needs a fresh code
// from the in-process OAuth server, and the refused requests (400, 429) are what two of the figures measure.
const measure = (
  opts: Record<string, unknown>
): Promise<{ rps: number; p50: number; p99: number; non2xx: number }> =>
  new Promise((resolve, reject) => {
    autocannon(
      { connections: CONNECTIONS, duration: DURATION, ...opts } as any,
      (error: any, result: any) => {
        if (error) return reject(error)
        resolve({
          rps: Math.round(result.requests.average),
          p50: result.latency.p50,
          p99: result.latency.p99,
          non2xx: result.non2xx
        })
      }
    )
  })

export async function run() {
  const oauth = await startOAuthServer()
  const unlimited = { points: 1e9, durationMs: 900000 }
  const server = await startServer({
    oauth: { google: { tokenURL: oauth.tokenUrl, profileURL: oauth.profileUrl } },
    rateLimits: {
      loginsPerIp: unlimited,
      actionCodesPerIp: unlimited,
      failedActionCodesPerAccount: unlimited,
      failedLoginsPerEmail: { points: 1, durationMs: 900000 }
    }
  })
  try {
    const user = await signUp(server.url)
    const blocked = await signUp(server.url)
    // Use up the (bench-lowered) per-email limit of `blocked`.
    await fetch(`${server.url}/authentication`, {
      method: 'POST',
      headers: jsonHeaders(),
      body: JSON.stringify({ email: blocked.email, password: 'wrong' })
    })
    const post = (body: unknown) => ({
      url: `${server.url}/authentication`,
      method: 'POST',
      headers: jsonHeaders(),
      body: JSON.stringify(body)
    })

    const baseline = await measure({
      url: `${server.url}/accounts/${user.account.id}`,
      headers: { authorization: `Bearer ${user.token}` }
    })
    const passwordLogin = await measure(post({ email: user.email, password: user.password }))
    const profile = { id: 'bench-google-user', email: 'bench-google@example.test' }
    const googleLogin = await measure({
      ...post({}),
      requests: [
        {
          setupRequest: (req: any) => ({
            ...req,
            body: JSON.stringify({
              strategy: 'google',
              redirectURI: 'https://app.example.test/cb',
              code: oauth.issueCode(profile)
            })
          })
        }
      ]
    })
    const unknownCode = await measure(post({ action: 'applyActionCode', code: 'ABCDEFGH-12345678' }))
    const limitedLogin = await measure(post({ email: blocked.email, password: blocked.password }))

    const ratio = (r: { rps: number }) => round(r.rps / baseline.rps, 3)
    return {
      name: 'auth',
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      baseline: { what: 'GET /accounts/:id with Bearer', ...baseline },
      passwordLogin: { ...passwordLogin, ratioToBaseline: ratio(passwordLogin) },
      googleLogin: { ...googleLogin, ratioToBaseline: ratio(googleLogin) },
      unknownActionCode400: { ...unknownCode, ratioToBaseline: ratio(unknownCode) },
      rateLimitedLogin429: { ...limitedLogin, ratioToBaseline: ratio(limitedLogin) }
    }
  } finally {
    await server.close()
    await oauth.close()
  }
}
