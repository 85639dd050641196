// Time drives the rest of a subscription's life. One pass (on one instance at a time: a lease; the clock is the
// app's, `deps.clock`) runs at start-up and every `subscriptions.jobIntervalMs`:
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
import type { Deps } from '../deps'
import { recoveryJob } from '../jobs/recovery-loop'
import type { Subscription } from '../services/subscriptions/subscriptions.schema'
import { chargeFacility, checkoutForDue, failCheckout, periodEnd, write } from './lifecycle'
import { dayMs, subscriptionSettings } from './settings'

const due = async (deps: Deps, query: Record<string, unknown>): Promise<Subscription[]> =>
  deps.stores.subscriptions._find({ query: { ...query, $limit: 200 }, paginate: false })

const server = { by: null, params: undefined }

const owed = (sub: Subscription) =>
  Math.max(0, sub.price + (sub.prorations ?? []).reduce((sum, p) => sum + p.amount, 0))

const endTrial = async (deps: Deps, sub: Subscription) => {
  const result = await chargeFacility(deps, sub, sub.price, 'trial-end')
  if (result === 'unavailable') return false
  const start = sub.trialEndsAt ?? deps.clock.now()
  if (result === 'paid') {
    await write(
      deps,
      sub,
      { currentPeriodStart: start, currentPeriodEnd: periodEnd(start, sub.interval) },
      { status: 'active', reason: 'trial ended; charged the default card', actor: server, announce: true }
    )
  } else {
    const checkout = await checkoutForDue(deps, sub, sub.price)
    await write(deps, sub, checkout, {
      status: 'paused',
      reason: 'trial ended without a payment method that could be charged',
      actor: server,
      announce: true
    })
  }
  return true
}

const renew = async (deps: Deps, sub: Subscription) => {
  const start = sub.currentPeriodEnd ?? deps.clock.now()
  const amount = owed(sub)
  const result = await chargeFacility(deps, sub, amount, `renewal-${start}`)
  if (result === 'unavailable') return false
  if (result === 'paid') {
    await write(
      deps,
      sub,
      { currentPeriodStart: start, currentPeriodEnd: periodEnd(start, sub.interval), prorations: [] },
      { actor: server, announce: true }
    )
    return true
  }
  const at = deps.clock.now()
  const checkout = await checkoutForDue(deps, sub, amount)
  const retryDays = subscriptionSettings(deps).retryDays
  await write(
    deps,
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

const retry = async (deps: Deps, sub: Subscription) => {
  const state = sub.retry
  if (!state) return false
  const result = await chargeFacility(deps, sub, owed(sub), `retry-${state.since}-${state.attempt + 1}`)
  if (result === 'unavailable') return false
  const at = deps.clock.now()
  if (result === 'paid') {
    await write(
      deps,
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
  const retryDays = subscriptionSettings(deps).retryDays
  const next = state.attempt + 1
  if (next >= retryDays.length) {
    await write(
      deps,
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
      deps,
      sub,
      { retry: { attempt: next, nextAt: state.since + retryDays[next] * dayMs, since: state.since } },
      { actor: server, announce: true }
    )
  }
  return true
}

const expireCheckout = async (deps: Deps, sub: Subscription) => {
  if (!sub.checkoutSession) return false
  return (await failCheckout(deps, sub.checkoutSession.id, 'the checkout expired unpaid', true)) !== null
}

const expire = async (deps: Deps, sub: Subscription) => {
  await write(
    deps,
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

/** One pass over every subscription whose time has come; answers how many it changed and a summary to log. */
export const subscriptionPass = async (deps: Deps): Promise<{ changed: number; summary: string | null }> => {
  const at = deps.clock.now()
  const window = subscriptionSettings(deps).incompleteWindowMs
  const steps: [string, Record<string, unknown>, (deps: Deps, sub: Subscription) => Promise<boolean>][] = [
    ['trials ended', { status: 'trialing', trialEndsAt: { $lte: at } }, endTrial],
    ['renewals', { status: 'active', currentPeriodEnd: { $lte: at } }, renew],
    ['retries', { status: 'past_due', 'retry.nextAt': { $lte: at } }, retry],
    ['checkouts expired', { status: 'pending', 'checkoutSession.expiresAt': { $lte: at } }, expireCheckout],
    ['expired', { status: 'incomplete', incompleteAt: { $lte: at - window } }, expire]
  ]
  const counts: string[] = []
  let total = 0
  for (const [name, query, step] of steps) {
    let changed = 0
    for (const sub of await due(deps, query)) {
      try {
        if (await step(deps, sub)) changed++
      } catch (error) {
        // A subscription changed meanwhile (409) or a failing write: the next pass sees it again.
        deps.logger.warn(
          `Subscription ${sub.id} (${name}) not changed: ${error instanceof Error ? error.message : 'unknown error'}`
        )
      }
    }
    if (changed) counts.push(`${changed} ${name}`)
    total += changed
  }
  return { changed: total, summary: counts.length ? counts.join(', ') : null }
}

/** The pass as a job (src/ops/jobs.ts): at start-up, then every `subscriptions.jobIntervalMs`, under the lease `subscriptions-recovery`. */
export const subscriptionsJob = (app: Application, deps: Deps) =>
  recoveryJob(app, 'subscriptions', {
    intervalMs: () => subscriptionSettings(deps).jobIntervalMs,
    pass: async () => (await subscriptionPass(deps)).summary
  })
