// Crash recovery of stock movements and order dispatches: at startup (after the store is ready) and then every
// `inventory.recoveryIntervalMs`, movements and dispatches left unfinished before the stale cutoff are finished
// or taken back (src/inventory/movements.ts, src/orders/dispatch.ts). On the embedded engine one process owns
// the data, so at startup everything unfinished is stale; on MongoDB only what is older than
// `inventory.staleAfterMs` (another process may still be working on it).
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import { recoveryJob, staleCutoff } from '../jobs/recovery-loop'
import { recoverDispatches } from '../orders/dispatch'
import { recoverStockMovements } from './movements'

/**
 * The start-up and periodic recovery passes (src/jobs/recovery-loop.ts), a job of src/ops/jobs.ts. The loop itself
 * (its lease and the engine's stale cutoff) still takes the app; the passes take `deps`.
 */
export const inventoryRecoveryJob = (app: Application, deps: Deps) =>
  recoveryJob(app, 'inventory', {
    intervalMs: () => deps.settings.get('inventory').recoveryIntervalMs,
    pass: async (when) => {
      const before = staleCutoff(app, when, deps.settings.get('inventory').staleAfterMs)
      const movements = await recoverStockMovements(deps, before)
      // After the movements: a dispatch's movements are all applied or gone before it is taken back.
      const dispatches = await recoverDispatches(deps, before)
      return movements || dispatches
        ? `${movements} movements finished or undone, ${dispatches} interrupted dispatches taken back`
        : null
    }
  })
