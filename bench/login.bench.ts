// Password logins per second, next to what bcrypt alone allows in the same run: the project hashes passwords with
// bcryptjs at the configured cost (authentication.local.hashSize, 10 by default), and a login's price is one
// bcrypt compare — by design, so stolen hashes are slow to crack; this bench reports it and never weakens it.
// Baseline: the local strategy's own compare (bcryptjs) of the same hash back to back in this process (one event
// loop, like the server).
// ratio = logins/s ÷ bare compares/s (1 = the login costs nothing beyond its hash check).
import type { LocalStrategy } from '@feathersjs/authentication-local'
import { signUp, startServer } from '../test/helpers/app'
import { measureLoad, round } from './lib'

const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 10

export async function run() {
  const unlimited = { points: 1e9, durationMs: 900000 }
  const server = await startServer({
    mongodb: '',
    rateLimits: { loginsPerIp: unlimited, failedLoginsPerEmail: unlimited }
  })
  try {
    const user = await signUp(server.url, { email: 'login@login-bench.test' })
    const stored = (await (server.app.service('accounts' as any) as any)._get(user.account.id))
      .password as string // (cast: the raw store, for the stored hash)
    const cost = Number(stored.split('$')[2])
    const local = server.app.service('authentication').getStrategy('local') as LocalStrategy

    // Bare bcrypt: compares of the stored hash, one after the other, for DURATION seconds.
    const started = Date.now()
    let compares = 0
    while (Date.now() - started < DURATION * 1000) {
      await local.comparePassword({ password: stored }, user.password) // (throws when they do not match)
      compares += 1
    }
    const comparesPerSecond = round(compares / ((Date.now() - started) / 1000), 1)

    const logins = await measureLoad('password logins', `${server.url}/authentication`, {
      method: 'POST',
      bodies: [{ email: user.email, password: user.password }],
      connections: CONNECTIONS,
      duration: DURATION
    })
    return {
      name: 'login',
      bcryptCost: cost,
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      note: 'POST /authentication { email, password } (each a bcrypt compare at the configured cost, an account read, an audit event, a token) vs bare bcryptjs compares of the same hash in one event loop, same run',
      bareComparesPerSecond: comparesPerSecond,
      logins,
      ratio: round(logins.requestsPerSecond / comparesPerSecond, 3)
    }
  } finally {
    await server.close()
  }
}
