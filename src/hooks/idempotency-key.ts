// Idempotency-Key (Stripe's semantics) for the REST calls of services that move money: a retry with the same
// key and the same request answers the first result (same status and body) without doing the work again; the
// same key with another request is a 409; a request still running under the key makes the retry wait for its
// result (so twenty simultaneous captures with one key capture once). Keys belong to the calling account and
// expire after 24 hours (then removed by a periodic pass). Results and client errors (4xx) are kept; a server-side
// failure frees the key.
import crypto from 'node:crypto'
import { BadRequest, Conflict, convert } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'
import { depsSlot } from '../deps'
import type { IdempotencyKeyRecord } from '../schema/billing'
import type { Stored } from '../store'
import { errorCode } from '../billing/store-calls'

const DAY_MS = 24 * 60 * 60 * 1000
const WAIT_MS = 60_000

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

const replay = (record: Stored<IdempotencyKeyRecord>) => {
  if (record.error) throw convert(record.error)
  return record.result
}

export const idempotencyKey = async (context: HookContext, next: NextFunction) => {
  const header = context.params.headers?.['idempotency-key']
  if (!context.params.provider || header === undefined) return next()
  if (typeof header !== 'string' || header.length === 0 || header.length > 255)
    throw new BadRequest('The Idempotency-Key header must be 1 to 255 characters')
  const { stores, clock } = depsSlot.require(context.app)
  const store = stores.idempotencyKeys
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
  const now = clock.now()
  let mine: Stored<IdempotencyKeyRecord> | null = null
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
      } catch (error) {
        if (errorCode(error) !== 409) throw error
        ;[found] = await store._find({ query: { key }, paginate: false })
        if (!found) continue
      }
    }
    if (found.expiresAt <= clock.now()) {
      await store._remove(found.id, { query: { expiresAt: { $lte: clock.now() } } }).catch(() => null)
      continue
    }
    if (found.request !== request)
      throw new Conflict('This Idempotency-Key was used with a different request; use a new key', {
        idempotencyKey: header
      })
    // The first request under this key: its result, once it has one.
    const deadline = clock.now() + WAIT_MS
    let current = found
    while (current && current.state === 'pending' && clock.now() < deadline) {
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
  } catch (error) {
    const code = errorCode(error) ?? 500
    if (code >= 400 && code < 500)
      await store._patch(mine.id, { state: 'done', error: convert(error).toJSON() })
    else await store._remove(mine.id).catch(() => null)
    throw error
  }
  await store._patch(mine.id, { state: 'done', result: context.result })
}
