// The Idempotency-Key records (src/hooks/idempotency-key.ts): their store, created once per app at start-up with
// its unique index, and the purge of keys whose 24 hours are over (run by the payment intents' periodic pass), so
// the store does not grow with every key ever sent.
import type { Application } from '../declarations'
import type { Deps } from '../deps'
import { createStore, type StoreService, type Stored } from '../store'
import { appSlot } from '../runtime'
import type { IdempotencyKeyRecord } from '../schema/billing'

export type IdempotencyStore = StoreService<Stored<IdempotencyKeyRecord>>

const keysSlot = appSlot<IdempotencyStore>('idempotency keys store')

/** The keys' store of `app` (made on first use, during start-up: the composition root puts it into `Stores`). */
export const idempotencyStore = (app: Application): IdempotencyStore =>
  keysSlot.ensure(app, () =>
    createStore<Stored<IdempotencyKeyRecord>>(app, {
      name: 'idempotency-keys',
      paginate: false,
      indexes: [{ fields: { key: 1 }, unique: true }, { fields: { expiresAt: 1 } }]
    })
  )

/** Removes the keys whose 24 hours are over; answers how many were removed. */
export const purgeExpiredKeys = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  now = deps.clock.now()
): Promise<number> => {
  const removed = await deps.stores.idempotencyKeys._remove(null, {
    query: { expiresAt: { $lte: now } },
    paginate: false,
    adapter: { multi: true }
  })
  return removed.length
}
