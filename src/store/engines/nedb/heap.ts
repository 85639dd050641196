// The process heap of a large embedded store. Loading a collection of hundreds of thousands of documents leaves,
// besides the documents and their indexes, the load's own working sets as garbage (the map of documents by `_id`, the
// pool of shared strings, each index's groups and sorted keys: about 170 MB at a million records), and V8 lets a heap
// grow well past what it holds before its next full collection (at a 1.2 GB heap, to about 1.8 GB: RSS 1.4 GB at the
// start line, 2.0 GB after a few thousand lists). Here, once such a load is done:
// - one full collection returns the load's working sets before the server starts serving (well under a second);
// - V8's heap growing factor is set for the process to 1 + HEAP_GROWING_PERCENT/100 (NEDB_HEAP_GROWING_PERCENT), so a full collection comes once
//   the heap has grown by that share of what the last one kept. This is what keeps a million records within 1.5 GB
//   of RSS; its cost is CPU: at a million records a full collection every few thousand lists (the list's CPU went
//   from about 0.9 to 1.6 ms, its median latency unchanged). Smaller stores never reach LARGE_LOAD and keep V8's
//   own heuristics (the setting is process-wide, hence only once a store is this large).
import v8 from 'node:v8'
import vm from 'node:vm'

/** A collection loaded with at least this many documents is followed by one full garbage collection. */
export const LARGE_LOAD = 200_000

/**
 * After a large load, the heap grows by at most this share (percent) of what a full collection keeps, unless
 * NEDB_HEAP_GROWING_PERCENT says otherwise (0: V8's own heuristics).
 */
export const HEAP_GROWING_PERCENT = 10

/**
 * When `documents` (the count of a collection just loaded) is at least LARGE_LOAD: sets V8's heap growing factor to
 * 1 + `growingPercent`/100 and runs one full garbage collection.
 * (V8's `gc` function is taken from a fresh context once `--expose-gc` is set, so the app's own global object gains
 * no `gc`.)
 */
export const collectAfterLoad = (documents: number, growingPercent = HEAP_GROWING_PERCENT) => {
  if (documents < LARGE_LOAD) return
  // (V8 reads 0 as "its own heuristics")
  v8.setFlagsFromString(`--heap-growing-percent=${Math.max(0, Math.floor(growingPercent))}`)
  const own = (globalThis as { gc?: () => void }).gc
  if (!own) v8.setFlagsFromString('--expose-gc')
  const gc = own ?? (vm.runInNewContext('gc') as () => void)
  gc()
}
