// The sandbox clock (SANDBOX_CLOCK=true): the one clock every time-driven rule reads, moved forward on purpose by
// developers and tests — never backwards. Its offset (how far ahead of the real time it is) is kept in the store,
// so every instance reads the same time: each adopts the stored offset at start-up, every `SYNC_MS`, when another
// instance says it moved it (a notice through Redis), and before answering GET or PATCH /sandbox/clock.
import { BadRequest } from '@feathersjs/errors'
import type { OffsetClock } from '../clock'
import type { Deps } from '../deps'
import { invalid } from '../schema/validators'
import type { StoreService, Stored } from '../store'

/** The stored offset: one document (`key: "clock"`). */
export interface SandboxClockDoc {
  key: 'clock'
  offsetMs: number
  updatedAt: number
}

export type SandboxClockStore = StoreService<Stored<SandboxClockDoc>>

/** How often an instance adopts the stored offset when nothing told it the clock moved. */
export const SYNC_MS = 2000

/** What GET and PATCH answer. */
export interface ClockReading {
  now: number
  offsetMs: number
}

const KEY = { key: 'clock' } as const

/** Adopts the stored offset (the largest, should two instances have stored one at once); answers the reading. */
export const syncSandboxClock = async (
  clock: OffsetClock,
  store: SandboxClockStore
): Promise<ClockReading> => {
  const docs = await store._find({ query: { ...KEY }, paginate: false })
  clock.adopt(Math.max(0, ...docs.map((doc) => doc.offsetMs)))
  return { now: clock.now(), offsetMs: clock.offsetMs }
}

/** The stored offset's document, created (at offset 0) when there is none yet. */
const ensureStored = async (clock: OffsetClock, store: SandboxClockStore) => {
  const docs = await store._find({ query: { ...KEY }, paginate: false })
  if (docs.length === 0) await store._create({ ...KEY, offsetMs: clock.offsetMs, updatedAt: clock.now() })
}

/** A move: `{ advanceMs }` (ms to add, ≥ 0) or `{ now }` (the time to move to, not before the current one). */
export interface ClockMove {
  advanceMs?: number
  now?: number
}

/**
 * Moves the clock forward. Steps: 1. exactly one of `advanceMs` and `now` (400); 2. adopt the stored offset, so the
 * move starts from the time every instance reads; `now` before that time is a 400 naming it (never backwards);
 * 3. one atomic update of the stored offset (`$inc` by `advanceMs`, or `$max` to the offset `now` needs: two
 * simultaneous moves both count, and the stored offset never shrinks); 4. adopt it. Answers the new reading.
 */
export const moveSandboxClock = async (
  clock: OffsetClock,
  store: SandboxClockStore,
  move: ClockMove
): Promise<ClockReading> => {
  if ((move.advanceMs === undefined) === (move.now === undefined))
    throw new BadRequest('Send exactly one of advanceMs or now', {
      errors: [{ field: 'advanceMs', message: 'send exactly one of advanceMs or now' }]
    })
  await ensureStored(clock, store)
  const before = await syncSandboxClock(clock, store)
  const at = clock.now()
  if (move.now !== undefined) {
    if (move.now < before.now)
      throw invalid('data', [
        {
          field: 'now',
          message: `is before the clock's current time (${new Date(before.now).toISOString()}): it never goes backwards`
        }
      ])
    const offsetMs = before.offsetMs + (move.now - before.now)
    await store._patch(null, { $max: { offsetMs }, $set: { updatedAt: at } }, { query: { ...KEY } })
  } else {
    await store._patch(
      null,
      { $inc: { offsetMs: move.advanceMs ?? 0 }, $set: { updatedAt: at } },
      { query: { ...KEY } }
    )
  }
  return syncSandboxClock(clock, store)
}

/** Runs every time-driven pass on the (moved) clock: what each changed. */
export const runDuePasses = (deps: Pick<Deps, 'passes'>) => deps.passes.runAll()
