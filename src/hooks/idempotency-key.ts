// Idempotency-Key (Stripe's semantics) for the REST calls of services that move money: a retry with the same
// key and the same request answers the first result (same status and body) without doing the work again; the
// same key with another request is a 409; a request still running under the key makes the retry wait for its
// result (so twenty simultaneous captures with one key capture once). Keys belong to the calling account and
// expire after 24 hours (then removed by a periodic pass). Results and client errors (4xx) are kept; a server-side
// failure frees the key.
import crypto from 'node:crypto'
import { BadRequest, Conflict, convert } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../declarations'
import { createStore, type StoreService } from '../store'
import { appSlot } from '../runtime'

const DAY_MS = 24 * 60 * 60 * 1000
const WAIT_MS = 60_000

const keysSlot = appSlot<StoreService>('idempotency keys store')

/** The keys' store (created at start-up with its unique index). */
export const idempotencyStore = (app: Application): StoreService => {
  return keysSlot.ensure(app, () =>
    createStore(app, {
      name: 'idempotency-keys',
      paginate: false,
      indexes: [{ fields: { key: 1 }, unique: true }, { fields: { expiresAt: 1 } }]
    })
  )
}

/**
 * Removes the keys whose 24 hours are over (run by the payment intents' periodic pass), so the store does not
 * grow with every key ever sent. Answers how many were removed.
 */
export const purgeExpiredKeys = async (app: Application, now = Date.now()) => {
  const removed = await idempotencyStore(app)._remove(null, {
    query: { expiresAt: { $lte: now } },
    paginate: false,
    adapter: { multi: true }
  })
  return Array.isArray(removed) ? removed.length : removed ? 1 : 0
}

const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'null'
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const replay = (record: any) => {
  if (record.error) throw convert(record.error)
  return record.result
}

export const idempotencyKey = async (context: HookContext, next: NextFunction) => {
  const header = context.params.headers?.['idempotency-key']
  if (!context.params.provider || header === undefined) return next()
  if (typeof header !== 'string' || header.length === 0 || header.length > 255)
    throw new BadRequest('The Idempotency-Key header must be 1 to 255 characters')
  const store = idempotencyStore(context.app)
  const key = `${context.params.account?.id ?? 'anonymous'}:${context.path}:${context.method}:${header}`
  const request = crypto
    .createHash('sha256')
    .update(
      canonical({
        id: context.id ?? null,
        data: context.data ?? null,
        operators: context.params.operators ?? null
      })
    )
    .digest('hex')
  const now = Date.now()
  let mine: any = null
  // The key is looked up first (a retry finds it without an insert); the unique index on `key` decides between
  // two requests that both found none.
  for (let attempt = 0; attempt < 3 && !mine; attempt++) {
    let [found] = await store._find({ query: { key }, paginate: false })
    if (!found) {
      try {
        mine = await store._create({
          key,
          request,
          state: 'pending',
          createdAt: now,
          expiresAt: now + DAY_MS
        })
        break
      } catch (error: any) {
        if (error?.code !== 409) throw error
        ;[found] = await store._find({ query: { key }, paginate: false })
        if (!found) continue
      }
    }
    if (found.expiresAt <= Date.now()) {
      await store._remove(found.id, { query: { expiresAt: { $lte: Date.now() } } }).catch(() => null)
      continue
    }
    if (found.request !== request)
      throw new Conflict('This Idempotency-Key was used with a different request; use a new key', {
        idempotencyKey: header
      })
    // The first request under this key: its result, once it has one.
    const deadline = Date.now() + WAIT_MS
    let current = found
    while (current && current.state === 'pending' && Date.now() < deadline) {
      await sleep(20)
      ;[current] = await store._find({ query: { key }, paginate: false })
    }
    if (!current) continue
    if (current.state === 'pending')
      throw new Conflict('A request with this Idempotency-Key is still in progress; retry later', {
        idempotencyKey: header
      })
    context.result = replay(current)
    return
  }
  if (!mine) throw new Conflict('This Idempotency-Key is changing hands; retry', { idempotencyKey: header })
  try {
    await next()
  } catch (error: any) {
    const code = typeof error?.code === 'number' ? error.code : 500
    if (code >= 400 && code < 500)
      await store._patch(mine.id, { state: 'done', error: convert(error).toJSON() })
    else await store._remove(mine.id).catch(() => null)
    throw error
  }
  await store._patch(mine.id, { state: 'done', result: context.result })
}
