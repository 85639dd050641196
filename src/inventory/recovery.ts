// Crash recovery of stock movements and order dispatches: at startup (after the store is ready) and then every
// `inventory.recoveryIntervalMs`, movements and dispatches left unfinished before the stale cutoff are finished
// or taken back (src/inventory/movements.ts, src/orders/dispatch.ts). On the embedded engine one process owns
// the data, so at startup everything unfinished is stale; on MongoDB only what is older than
// `inventory.staleAfterMs` (another process may still be working on it).
import type { Application } from '../declarations'
import { logger } from '../logger'
import { recoverDispatches } from '../orders/dispatch'
import { recoverStockMovements } from './movements'

/** Registers startup recovery (after the store is ready) and the periodic pass; stops it on teardown. */
export const inventoryRecovery = (app: Application, settings: { staleAfterMs: number; recoveryIntervalMs: number }) => {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<unknown> = Promise.resolve()
  const run = (before: number, when: string) => {
    running = running
      .then(async () => {
        const movements = await recoverStockMovements(app, before)
        // After the movements: a dispatch's movements are all applied or gone before it is taken back.
        const dispatches = await recoverDispatches(app, before)
        if (movements || dispatches) logger.info(`Inventory recovery (${when}): ${movements} movements finished or undone, ${dispatches} interrupted dispatches taken back`)
      })
      .catch((error) => logger.error(`Inventory recovery (${when}) failed:`, error))
    return running
  }
  app.hooks({
    setup: [
      async (_context: any, next: any) => {
        await next()
        // On the embedded engine one process owns the data: everything unfinished at startup is stale.
        const now = Date.now()
        await run(app.get('mongodb') ? now - settings.staleAfterMs : now, 'startup')
        if (settings.recoveryIntervalMs > 0) {
          timer = setInterval(() => void run(Date.now() - settings.staleAfterMs, 'periodic'), settings.recoveryIntervalMs)
          timer.unref()
        }
      }
    ],
    teardown: [
      async (_context: any, next: any) => {
        if (timer) clearInterval(timer)
        await running
        await next()
      }
    ]
  })
}
