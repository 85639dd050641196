// The in-process MongoDB wire emulator (CongoDB from @push.rocks/smartmongo) on 127.0.0.1 and a free port, for
// `npm run test:mongo` when no MONGODB_URL is given. It lacks some MongoDB capabilities; the tests that need them
// are listed in test/mongo/emulator-exclusions.ts.
import { freePort } from './loopback'

export interface MongoEmulator {
  url: string
  stop(): Promise<void>
}

export const startMongoEmulator = async (): Promise<MongoEmulator> => {
  // The package is ESM-only; its CongoDB entry does not load the real-MongoDB dependencies (stubbed, see package.json).
  const { CongoServer } = await import('@push.rocks/smartmongo/dist_ts/congodb/index.js')
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    const server = new CongoServer({ host: '127.0.0.1', port, storage: 'memory' })
    try {
      await server.start()
    } catch (error: any) {
      // Another process took the port between the probe and the bind: try another one.
      if (error?.code === 'EADDRINUSE' && attempt < 5) continue
      throw error
    }
    // The emulator's hello carries a topologyVersion, which makes the driver monitor it with streaming (exhaust)
    // hellos; the emulator answers those once, the driver then reports "Server ended moreToCome unexpectedly" and
    // clears the connection pool, failing whatever is in flight. Polling monitoring avoids it (emulator only).
    return { url: `mongodb://127.0.0.1:${port}/clinic?serverMonitoringMode=poll`, stop: () => server.stop() }
  }
}
