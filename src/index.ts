// Starts the server: `npm start` (compiled) or `npm run dev` (TypeScript directly).
import { createApp } from './app'
import { logger } from './logger'

const main = async () => {
  const app = createApp()
  const port = app.get('port')
  const host = app.get('host')
  const server = await app.listen(port, host)
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  logger.info(`Listening on http://${host}:${actualPort}`)
  // A line tests and scripts can wait for.
  process.stdout.write(`READY ${actualPort}\n`)

  const stop = async (signal: string) => {
    logger.info(`${signal} received, shutting down`)
    await app.teardown()
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
}

main().catch((error) => {
  logger.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
