// Starts the server: `npm start` (compiled) or `npm run dev` (TypeScript directly). SIGTERM and SIGINT shut it
// down gracefully (src/ops/lifecycle.ts) within SHUTDOWN_GRACE_MS and exit 0; a second signal, or a shutdown
// still running at the end of the grace period, exits 1 at once.
import { createApp } from './app'
import { logger } from './logger'
import { lifecycleOf } from './ops/lifecycle'

const main = async () => {
  const app = createApp()
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

  const server = await app.listen(port, host)
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  logger.info(`Listening on http://${host}:${actualPort}`)
  // A line tests and scripts can wait for.
  process.stdout.write(`READY ${actualPort}\n`)
}

main().catch((error) => {
  logger.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
