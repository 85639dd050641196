// Starts the server: `npm start` (development: builds lib/ first when it is missing or older than the sources),
// `node lib/index.js` or `npm run serve` (production: never builds), `npm run dev` (TypeScript directly). Once it
// listens it writes one start line (JSON in production, with `port` and `urls`) naming the console, the API docs
// and the readiness probe. A start-up failure the operator can fix (a StartupError: a bad setting, the port in use,
// the store or Redis out of reach) is one line naming the setting and the fix, then exit 1. SIGTERM and SIGINT
// shut down gracefully (src/ops/lifecycle.ts) within SHUTDOWN_GRACE_MS and exit 0; a second signal, or a shutdown
// still running at the end of the grace period, exits 1 at once.
import type { Server } from 'node:http'
import type { Application } from './declarations'
import { logger } from './logger'
import { lifecycleOf } from './ops/lifecycle'
import { StartupError } from './startup-error'

/** The StartupError of a listen that failed (the port taken, not allowed, or an address this host does not have). */
const listenError = (error: NodeJS.ErrnoException, host: string, port: number): Error => {
  if (error.code === 'EADDRINUSE')
    return new StartupError(`PORT ${port} is in use (another server?); set PORT to a free port`, {
      cause: error
    })
  if (error.code === 'EACCES')
    return new StartupError(
      `PORT ${port} needs privileges this process does not have; set PORT to 1024 or above`,
      { cause: error }
    )
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return new StartupError(
      `HOST ${host} is not an address of this machine (${error.code}); set HOST to one of its addresses, 0.0.0.0 for all of them, or localhost`,
      { cause: error }
    )
  }
  return error
}

/** The address people and scripts use to reach the server (`localhost` when it listens on every interface). */
const baseUrl = (host: string, port: number) => {
  const shown =
    host === '' || host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host
  return `http://${shown}:${port}`
}

/**
 * The app, built. The configuration library parses JSON variables while it loads, so a malformed one
 * (GATEWAYS=notjson) throws on import: loading the app here turns that into a StartupError too.
 */
const loadApp = async (): Promise<Application> => {
  let createApp: typeof import('./app').createApp
  try {
    ;({ createApp } = await import('./app'))
  } catch (error: unknown) {
    const parse = /^__format parser error in (\w+): (.*)$/.exec(error instanceof Error ? error.message : '')
    if (parse)
      throw new StartupError(`${parse[1]} must be JSON (${parse[2]}); fix the value or unset it`, {
        cause: error
      })
    throw error
  }
  return createApp()
}

const main = async () => {
  const app = await loadApp()
  const port = app.get('port')
  const host = app.get('host')
  let stopping = false

  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn(`${signal} received again during shutdown: exiting now`)
      process.exit(1)
    }
    stopping = true
    const graceMs = lifecycleOf(app).graceMs
    logger.info(`${signal} received: shutting down (grace period ${graceMs} ms)`)
    const forced = setTimeout(() => {
      logger.error(`Shutdown did not finish within ${graceMs} ms: exiting`)
      process.exit(1)
    }, graceMs)
    forced.unref()
    try {
      await app.teardown()
      logger.info('Shutdown complete')
      process.exit(0)
    } catch (error) {
      logger.error('Shutdown failed:', error)
      process.exit(1)
    }
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))

  // app.listen binds the port (setting app.server at once) and then runs start-up: a port that cannot be bound
  // stops start-up as soon as the listener reports it.
  const listening = app.listen(port, host)
  const server = app.server as Server
  const bound = new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, host, port))
    server.once('error', failed)
    server.once('listening', () => {
      server.off('error', failed)
      resolve()
    })
  })
  await Promise.all([listening, bound])
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  const base = baseUrl(host, actualPort)
  const urls = { console: `${base}/`, docs: `${base}/docs`, ready: `${base}/health/ready` }
  // The start line: scripts and tests wait for it (its `port` and `urls` in JSON).
  logger.notice(
    { port: actualPort, urls },
    `Listening on ${base}: console ${urls.console}, API docs ${urls.docs}, readiness ${urls.ready}`
  )
}

main().catch((error) => {
  if (error instanceof StartupError) logger.error(error.message)
  else logger.error('Start-up failed:', error)
  process.exit(1)
})
