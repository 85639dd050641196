// Entries stay in step by themselves, crashes and failures included.
// - syncDirectory (an app-wide around hook): before a write to a service that feeds the directory (a source such as
//   organizations, or a trigger such as the catalogue), a *pending* record names the entries the write may alter
//   (the document's as it is before the write; for a create of a source document, whose id is not known yet, "all
//   of this source"). After the write, those entries and the ones the written document alters are rebuilt, and the
//   record is removed. A rebuild that fails does not fail the write (it succeeded and is answered): it is retried
//   shortly (0.1 s, 0.5 s, 1 s, 3 s, 10 s, 30 s) and its record stays until it succeeds.
// - At start-up (once the index is loaded) and every minute, the records left behind — by a process that died
//   between a source write and its entries' rebuild, or by rebuilds that kept failing — are repaired from the
//   sources: the named entries are rebuilt, and an "all of this source" record rebuilds every entry of that kind
//   (every document of the source, and every entry whose document is gone).
import type { Application, HookContext, NextFunction } from '../declarations'
import { logger } from '../logger'
import { serviceAt, createStore, type StoreService } from '../store'
import { faultPoint } from '../billing/fault'
import { directoryIndex, rebuildEntry } from './entries'
import { affectedBy, entrySources, type EntrySource } from './sources'
import { appSlot } from '../runtime'

interface PendingRecord {
  id: string
  /** Entries to rebuild: `<kind>:<source document id>`. */
  keys: string[]
  /** Kinds to rebuild entirely (a source document was created: its id was not known before the write). */
  kinds: string[]
  /** Epoch ms the write started. */
  at: number
}

const WRITES = ['create', 'update', 'patch', 'remove']
const RETRY_DELAYS_MS = [100, 500, 1000, 3000, 10000, 30000]
/** How often leftover records are looked for, and how old they must be (younger ones belong to writes in flight). */
const REPAIR_INTERVAL_MS = 60_000

export interface RepairState {
  store: StoreService<PendingRecord>
  timers: Set<NodeJS.Timeout>
  stopped: boolean
  /** The start-up repair (resolves when done). */
  startup?: Promise<void>
  /** When this app's store was set up: records from before it were left by an earlier process. */
  since: number
}

// Created when the directory service is registered.
const repairSlot = appSlot<RepairState>('directory repair')
const stateOf = (app: Application): RepairState => repairSlot.require(app)

/** Creates the pending records' store (small; part of start-up like every store). */
export const setupDirectoryRepair = (app: Application) => {
  const store = createStore<PendingRecord>(app, {
    name: 'directory-pending',
    paginate: false,
    indexes: [{ fields: { at: 1 } }]
  })
  repairSlot.set(app, { store, timers: new Set(), stopped: false, since: Date.now() })
}

const sourceByKind = (kind: string) => entrySources().find((source) => source.kind === kind)
const keyOf = (source: EntrySource, id: string) => `${source.kind}:${id}`
const splitKey = (key: string): [EntrySource, string] | null => {
  const at = key.indexOf(':')
  const source = sourceByKind(key.slice(0, at))
  return source && at > 0 ? [source, key.slice(at + 1)] : null
}

const watchedPaths = () => {
  const paths = new Set<string>()
  for (const source of entrySources()) {
    paths.add(source.path)
    for (const trigger of source.triggers ?? []) paths.add(trigger.path)
  }
  return paths
}

/** What a write may alter, known before it runs: the entries of the document as it is now, or whole kinds. */
const beforeWrite = async (context: HookContext): Promise<{ keys: string[]; kinds: string[] }> => {
  const keys = new Set<string>()
  const kinds = new Set<string>()
  const add = (doc: any) => {
    for (const [source, id] of affectedBy(context.path, doc)) keys.add(keyOf(source, id))
  }
  if (context.method === 'create') {
    const items = Array.isArray(context.data) ? context.data : [context.data]
    for (const item of items) add({ ...item, id: undefined })
    for (const source of entrySources()) if (source.path === context.path) kinds.add(source.kind)
  } else if (context.id === null || context.id === undefined) {
    // A multi write: which documents it reaches is not known before.
    for (const source of entrySources()) {
      if (source.path === context.path || (source.triggers ?? []).some((t) => t.path === context.path))
        kinds.add(source.kind)
    }
  } else {
    const doc = await serviceAt(context.app, context.path)
      ._get(context.id)
      .catch(() => null)
    add(doc ?? { id: String(context.id) })
  }
  return { keys: [...keys], kinds: [...kinds] }
}

/** Rebuilds the entries of `keys`; the keys that failed. */
const rebuildKeys = async (app: Application, keys: string[]) => {
  const failed: string[] = []
  for (const key of keys) {
    const parsed = splitKey(key)
    if (!parsed) continue
    try {
      await rebuildEntry(app, parsed[0], parsed[1])
    } catch (error: any) {
      logger.error(`Directory entry ${key} could not be rebuilt (will retry):`, error?.message ?? error)
      failed.push(key)
    }
  }
  return failed
}

/** Every entry of `kind`: each document of its source, and each indexed entry whose document is gone. */
const rebuildKind = async (app: Application, kind: string) => {
  const source = sourceByKind(kind)
  if (!source) return []
  const docs = (await serviceAt(app, source.path)._find({ query: { $select: ['id'] }, paginate: false })) as {
    id: string
  }[]
  const keys = new Set(docs.map((doc) => keyOf(source, doc.id)))
  for (const key of (await directoryIndex(app)).keysOfType(kind)) keys.add(key)
  return rebuildKeys(app, [...keys])
}

/** Rebuilds what a record names; true when everything was rebuilt (the record can go). */
const settle = async (app: Application, record: Pick<PendingRecord, 'keys' | 'kinds'>) => {
  let failed = await rebuildKeys(app, record.keys)
  for (const kind of record.kinds) {
    try {
      failed = failed.concat(await rebuildKind(app, kind))
    } catch (error: any) {
      logger.error(
        `Directory entries of ${kind} could not be repaired (will retry):`,
        error?.message ?? error
      )
      failed.push(kind)
    }
  }
  return failed.length === 0
}

const removeRecord = async (app: Application, id: string) => {
  await stateOf(app)
    .store._remove(id)
    .catch((error: any) => {
      if (error?.code !== 404)
        logger.error('Directory pending record could not be removed:', error?.message ?? error)
    })
}

/** Settles a record now, and again later (with growing delays) until it is settled. Never throws. */
const settleWithRetries = async (app: Application, record: PendingRecord, attempt = 0): Promise<void> => {
  const state = stateOf(app)
  if (state.stopped) return
  const done = await settle(app, record).catch(() => false)
  if (done) return removeRecord(app, record.id)
  const delay = RETRY_DELAYS_MS[attempt]
  // After the last retry the record stays for the periodic repair (and the next start-up).
  if (delay === undefined) return
  const timer = setTimeout(() => {
    state.timers.delete(timer)
    void settleWithRetries(app, record, attempt + 1)
  }, delay)
  timer.unref()
  state.timers.add(timer)
}

/**
 * App-wide around hook: around every create/update/patch/remove of a document that feeds the directory, records
 * what it may alter, lets the write run, then rebuilds the entries it altered before the request returns. A failed
 * rebuild is logged and retried; the write's own answer is not changed by it.
 */
export const syncDirectory = async (context: HookContext, next: NextFunction) => {
  if (!WRITES.includes(context.method) || !watchedPaths().has(context.path) || !stateOf(context.app))
    return next()
  const app = context.app
  const state = stateOf(app)
  const before = await beforeWrite(context)
  const record = await state.store._create({ ...before, at: Date.now() })
  try {
    await next()
  } catch (error) {
    // The write failed (nothing or, if a later step failed, the document was written): rebuild the entries known
    // beforehand; a create that failed wrote nothing.
    void settleWithRetries(app, { ...record, kinds: [] })
    throw error
  }
  faultPoint(`directory-source-written:${context.path}:${context.method}`)
  const keys = new Set(before.keys)
  const result: any = context.result
  for (const doc of Array.isArray(result) ? result : [result]) {
    for (const [source, id] of affectedBy(context.path, doc)) keys.add(keyOf(source, id))
  }
  // What the write altered is known now: the record names it (no kind-wide rebuild needed).
  await settleWithRetries(app, { ...record, keys: [...keys], kinds: [] })
}

/** Repairs every record written before `before` (epoch ms). */
export const repairPending = async (app: Application, before: number) => {
  const state = stateOf(app)
  const records = (await state.store._find({
    query: { at: { $lt: before } },
    paginate: false
  })) as PendingRecord[]
  if (records.length === 0) return
  logger.info(`Directory: repairing ${records.length} pending change(s) from their sources`)
  const keys = [...new Set(records.flatMap((r) => r.keys))]
  const kinds = [...new Set(records.flatMap((r) => r.kinds))]
  if (await settle(app, { keys, kinds })) for (const record of records) await removeRecord(app, record.id)
}

/**
 * Start-up (in the background once the server is up, or at the first search): load the index, repair the leftover
 * records, then look for leftovers every minute. Idempotent; searches wait for it, so they never answer from an
 * index that misses a repair.
 */
export const startDirectoryRepair = (app: Application): Promise<void> => {
  const state = stateOf(app)
  if (state.startup) return state.startup
  if (state.stopped) return Promise.resolve()
  state.startup = (async () => {
    await directoryIndex(app)
    // Only what earlier processes left: a record of this process's own write in flight is settled by that write
    // (repairing it now would rebuild the entry from the document as it was before the write, then drop the record).
    await repairPending(app, state.since)
  })().catch((error: any) => logger.error('Directory start-up repair failed:', error?.message ?? error))
  const timer = setInterval(() => {
    repairPending(app, Date.now() - REPAIR_INTERVAL_MS).catch((error: any) =>
      logger.error('Directory repair failed:', error?.message ?? error)
    )
  }, REPAIR_INTERVAL_MS)
  timer.unref()
  state.timers.add(timer)
  return state.startup
}

/** Teardown: no more retries or repairs; waits for the start-up repair. */
export const stopDirectoryRepair = async (app: Application) => {
  const state = stateOf(app)
  if (!state) return
  state.stopped = true
  for (const timer of state.timers) clearTimeout(timer)
  state.timers.clear()
  await state.startup
}
