// Time drives the rest of a subscription's life. One pass (on one instance at a time: a lease; the clock is the
// app's, src/subscriptions/settings.ts) runs at start-up and every `subscriptions.jobIntervalMs`:
// 1. trials that ended: the facility's default card is charged the price → active for a period from the trial's
//    end; no card or a refused charge → paused (with a checkout to pay);
// 2. periods that ended (active): a free package rolls over; a paid one charges the price plus recorded prorations
//    → active for the next period, or past_due (with a checkout) and retries scheduled `retryDays` after;
// 3. retries that are due (past_due): the charge again → active for a new period; after the last retry → unpaid;
// 4. pending subscriptions whose checkout expired unpaid → incomplete (with a new checkout to pay);
// 5. incomplete subscriptions older than the window (default 23 h) → incomplete_expired (final; checkout voided).
// A processor that cannot be reached changes nothing (the next pass tries again). Each change is a conditional
// write (src/subscriptions/lifecycle.ts `write`), so a subscription changed meanwhile is left for the next pass.
import type { Application } from '../declarations'
import { recoveryJob } from '../jobs/recovery-loop'
import { logger } from '../logger'
import type { Subscription } from '../services/subscriptions/subscriptions.schema'
import {
  chargeFacility,
  checkoutForDue,
  failCheckout,
  periodEnd,
  subscriptionsPath,
  write
} from './lifecycle'
import { dayMs, now, subscriptionSettings } from './settings'
import { serviceAt } from '../store'

const due = async (app: Application, query: Record<string, unknown>): Promise<Subscription[]> =>
  serviceAt(app, subscriptionsPath)._find({ query: { ...query, $limit: 200 }, paginate: false })

const server = { by: null, params: undefined }

const owed = (sub: Subscription) =>
  Math.max(0, sub.price + (sub.prorations ?? []).reduce((sum, p) => sum + p.amount, 0))

const endTrial = async (app: Application, sub: Subscription) => {
  const result = await chargeFacility(app, sub, sub.price, 'trial-end')
  if (result === 'unavailable') return false
  const start = sub.trialEndsAt ?? now(app)
  if (result === 'paid') {
    await write(
      app,
      sub,
      { currentPeriodStart: start, currentPeriodEnd: periodEnd(start, sub.interval) },
      { status: 'active', reason: 'trial ended; charged the default card', actor: server, announce: true }
    )
  } else {
    const checkout = await checkoutForDue(app, sub, sub.price)
    await write(app, sub, checkout, {
      status: 'paused',
      reason: 'trial ended without a payment method that could be charged',
      actor: server,
      announce: true
    })
  }
  return true
}

const renew = async (app: Application, sub: Subscription) => {
  const start = sub.currentPeriodEnd ?? now(app)
  const amount = owed(sub)
  const result = await chargeFacility(app, sub, amount, `renewal-${start}`)
  if (result === 'unavailable') return false
  if (result === 'paid') {
    await write(
      app,
      sub,
      { currentPeriodStart: start, currentPeriodEnd: periodEnd(start, sub.interval), prorations: [] },
      { actor: server, announce: true }
    )
    return true
  }
  const at = now(app)
  const checkout = await checkoutForDue(app, sub, amount)
  const retryDays = subscriptionSettings(app).retryDays
  await write(
    app,
    sub,
    {
      ...checkout,
      retry: retryDays.length ? { attempt: 0, nextAt: at + retryDays[0] * dayMs, since: at } : null
    },
    {
      status: retryDays.length ? 'past_due' : 'unpaid',
      reason: 'renewal payment failed',
      actor: server,
      announce: true
    }
  )
  return true
}

const retry = async (app: Application, sub: Subscription) => {
  const state = sub.retry!
  const result = await chargeFacility(app, sub, owed(sub), `retry-${state.since}-${state.attempt + 1}`)
  if (result === 'unavailable') return false
  const at = now(app)
  if (result === 'paid') {
    await write(
      app,
      sub,
      {
        currentPeriodStart: at,
        currentPeriodEnd: periodEnd(at, sub.interval),
        prorations: [],
        retry: null,
        checkoutSession: null,
        checkout: null
      },
      {
        status: 'active',
        reason: `retry ${state.attempt + 1} charged the default card`,
        actor: server,
        announce: true
      }
    )
    return true
  }
  const retryDays = subscriptionSettings(app).retryDays
  const next = state.attempt + 1
  if (next >= retryDays.length) {
    await write(
      app,
      sub,
      { retry: null },
      {
        status: 'unpaid',
        reason: `renewal payment failed; all ${retryDays.length} retries exhausted`,
        actor: server,
        announce: true
      }
    )
  } else {
    await write(
      app,
      sub,
      { retry: { attempt: next, nextAt: state.since + retryDays[next] * dayMs, since: state.since } },
      { actor: server, announce: true }
    )
  }
  return true
}

const expireCheckout = async (app: Application, sub: Subscription) => {
  if (!sub.checkoutSession) return false
  return (await failCheckout(app, sub.checkoutSession.id, 'the checkout expired unpaid', true)) !== null
}

const expire = async (app: Application, sub: Subscription) => {
  await write(
    app,
    sub,
    { checkoutSession: null, checkout: null, updatesPending: {} },
    {
      status: 'incomplete_expired',
      reason: 'the first payment was not made in time',
      actor: server,
      announce: true
    }
  )
  return true
}

/** One pass over every subscription whose time has come; answers what it changed. */
export const subscriptionPass = async (app: Application) => {
  const at = now(app)
  const window = subscriptionSettings(app).incompleteWindowMs
  const steps: [
    string,
    Record<string, unknown>,
    (app: Application, sub: Subscription) => Promise<boolean>
  ][] = [
    ['trials ended', { status: 'trialing', trialEndsAt: { $lte: at } }, endTrial],
    ['renewals', { status: 'active', currentPeriodEnd: { $lte: at } }, renew],
    ['retries', { status: 'past_due', 'retry.nextAt': { $lte: at } }, retry],
    ['checkouts expired', { status: 'pending', 'checkoutSession.expiresAt': { $lte: at } }, expireCheckout],
    ['expired', { status: 'incomplete', incompleteAt: { $lte: at - window } }, expire]
  ]
  const counts: string[] = []
  for (const [name, query, step] of steps) {
    let changed = 0
    for (const sub of await due(app, query)) {
      try {
        if (await step(app, sub)) changed++
      } catch (error) {
        // A subscription changed meanwhile (409) or a failing write: the next pass sees it again.
        logger.warn(
          `Subscription ${sub.id} (${name}) not changed: ${error instanceof Error ? error.message : 'unknown error'}`
        )
      }
    }
    if (changed) counts.push(`${changed} ${name}`)
  }
  return counts.length ? counts.join(', ') : null
}

/** The pass as a job (src/ops/jobs.ts): at start-up, then every `subscriptions.jobIntervalMs`, under the lease `subscriptions-recovery`. */
export const subscriptionsJob = (app: Application) =>
  recoveryJob(app, 'subscriptions', {
    intervalMs: () => subscriptionSettings(app).jobIntervalMs,
    pass: () => subscriptionPass(app)
  })
