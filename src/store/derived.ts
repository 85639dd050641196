// State derived from collections, kept in memory only while it is exactly the stored state: each value is kept
// with the change counters of the collections it was read from (read before the reading starts), and used only
// while every one of them still shows that count. Where a collection has no counter (MongoDB: other instances
// write it; a journal collection) nothing is kept and every call reads the store, as before.
import type { Store } from './contract'

/** A collection whose change counter the derived values follow. */
type Counted = Pick<Store, 'version'>

/** The counters of `stores` joined into one stamp, or undefined when one of them has none. */
const stampOf = (stores: readonly Counted[]): string | undefined => {
  let stamp = ''
  for (const store of stores) {
    const version = store.version()
    if (version === undefined) return undefined
    stamp += `${version},`
  }
  return stamp
}

/**
 * Values by key derived from `stores`. The values are shared between callers: they must never be changed. At
 * most `max` keys are kept (the oldest go first).
 */
export class DerivedCache<K, V> {
  private readonly entries = new Map<K, { stamp: string; value: V }>()

  constructor(
    private readonly stores: readonly Counted[],
    private readonly max = 10_000
  ) {}

  /** Whether values are kept at all (every collection has a counter): else `get` reads each time. */
  keeps(): boolean {
    return stampOf(this.stores) !== undefined
  }

  /** The value of `key`: the kept one while the collections are unchanged, else `read()` (then kept). */
  async get(key: K, read: () => Promise<V>): Promise<V> {
    const stamp = stampOf(this.stores)
    if (stamp === undefined) return read()
    const kept = this.entries.get(key)
    if (kept && kept.stamp === stamp) return kept.value
    // (a write during the read moves a counter past `stamp`: the value is then read again at the next call)
    const value = await read()
    this.entries.delete(key)
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as K)
    this.entries.set(key, { stamp, value })
    return value
  }
}
