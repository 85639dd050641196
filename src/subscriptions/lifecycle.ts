// Subscriptions: one live subscription per facility, its status and what changes it. Every change goes through
// one conditional write (`write`): it applies only to the version that was read
// (its status and `updatedAt`), is recorded in `statusHistory` ({ status, at, by, reason }) and announced like a
// service call (realtime to the facility's members, `subscriptions.*` webhooks).
import { BadGateway, Conflict, Forbidden, NotFound } from '@feathersjs/errors'
import type { Params } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import { invalid } from '../schema/validators'
import { within } from '../access/rules'
import { ProcessorDeclined, ProcessorUnavailable } from '../providers/processor'
import type { Package } from '../services/subscription-packages/subscription-packages.schema'
import {
  FINAL_STATUSES,
  type Subscription,
  type SubscriptionStatus
} from '../services/subscriptions/subscriptions.schema'
import { activePackage, baseValues, unsuitable } from './packages'
import { dayMs, subscriptionSettings } from './settings'

export const subscriptionsPath = 'subscriptions'

/** The `code` of a Feathers error (or undefined). */
const errorCode = (error: unknown) => (error as { code?: unknown } | null)?.code

export const isFinal = (status: string) => (FINAL_STATUSES as string[]).includes(status)

/** The unique key that allows one live subscription per facility: the facility id while live, unique per subscription once final. */
export const liveKeyOf = (facility: string, status: string, id: string) =>
  isFinal(status) ? `${facility}:${id}` : facility

/** The facility's live (not final) subscription, or null. */
export const liveSubscription = async (deps: Deps, facility: string): Promise<Subscription | null> => {
  const found = await deps.stores.subscriptions._find({
    query: { liveKey: facility, $limit: 1 },
    paginate: false
  })
  return found[0] ?? null
}

const periodEnd = (start: number, interval: string) => start + (interval === 'year' ? 365 : 30) * dayMs

/** The package fields a subscription carries: the package, its price, and every product at its base value. */
const packageFields = (pkg: Package, previous?: Subscription) => {
  const values: Record<string, unknown> = {
    package: pkg.id,
    price: pkg.price,
    currency: pkg.currency,
    interval: pkg.interval,
    ...baseValues(pkg)
  }
  // Products of the previous package that the new one does not have are off (false / 0).
  if (previous) {
    for (const key of featureKeys(previous))
      if (!(key in values)) values[key] = typeof previous[key] === 'boolean' ? false : 0
  }
  return values
}

/** The product keys a subscription document carries (its top-level boolean and number fields that are not its own). */
const OWN_NUMBERS = [
  'createdAt',
  'updatedAt',
  'price',
  'trialEndsAt',
  'currentPeriodStart',
  'currentPeriodEnd',
  'incompleteAt',
  'canceledAt'
]
export const featureKeys = (sub: Record<string, unknown>) =>
  Object.entries(sub)
    .filter(
      ([key, value]) =>
        (typeof value === 'boolean' || typeof value === 'number') && !OWN_NUMBERS.includes(key)
    )
    .map(([key]) => key)

interface Actor {
  /** The account making the change, or null for the server (the time-driven pass, the processor). */
  by: string | null
  params?: Params
}

/**
 * The one conditional write of a subscription:
 * 1. the change applies only if the stored subscription still has the status and `updatedAt` that were read
 *    (otherwise 409: it changed meanwhile), within the caller's write scope when there is one;
 * 2. a new status is appended to `statusHistory` with who and why, and moves the live key (final statuses free it);
 * 3. when `announce` is set (changes outside a service call), the change is published and delivered to webhooks.
 */
export const write = async (
  deps: Deps,
  sub: Subscription,
  change: Record<string, unknown>,
  options: { status?: SubscriptionStatus; reason?: string; actor: Actor; announce?: boolean }
): Promise<Subscription> => {
  const at = deps.clock.now()
  const data: Record<string, unknown> = { ...change, updatedAt: Math.max(at, sub.updatedAt + 1) }
  if (options.status && options.status !== sub.status) {
    data.status = options.status
    data.statusHistory = [
      ...sub.statusHistory,
      {
        status: options.status,
        at,
        by: options.actor.by,
        ...(options.reason ? { reason: options.reason } : {})
      }
    ]
    data.liveKey = liveKeyOf(sub.facility, options.status, sub.id)
  }
  let updated: Subscription
  try {
    updated = await deps.stores.subscriptions._patch(sub.id, data, {
      query: within({ status: sub.status, updatedAt: sub.updatedAt }, options.actor.params?.writeScope)
    })
  } catch (error) {
    if (errorCode(error) === 404)
      throw new Conflict('The subscription changed meanwhile; read it again', { subscription: sub.id })
    throw error
  }
  if (options.announce) await deps.announce(subscriptionsPath, 'patched', updated)
  return updated
}

/** The reference the processor keeps with a checkout or charge: unique per attempt, traceable to the subscription. */
const referenceOf = (sub: Subscription, what: string, at: number) => `sub_${sub.id}_${what}_${at}`

/** Opens a checkout for `amount` (smallest unit) at the processor: the fields to store on the subscription. */
const openCheckout = async (
  deps: Deps,
  sub: Subscription,
  amount: number,
  description: string,
  params?: Params
) => {
  const settings = subscriptionSettings(deps)
  const origin = deps.providers.publicOrigin(params?.headers)
  const at = deps.clock.now()
  try {
    const session = await deps.providers.processor().createCheckout({
      reference: referenceOf(sub, 'checkout', at),
      amount,
      currency: sub.currency,
      description,
      successURL: settings.successURL || `${origin}/processor/checkout/done`,
      cancelURL: settings.cancelURL || `${origin}/processor/checkout/cancel`,
      expiresAt: deps.clock.now() + settings.checkoutExpiresAfterMs,
      origin
    })
    return {
      checkoutSession: { id: session.id, url: session.url, expiresAt: session.expiresAt },
      checkout: { amount, currency: sub.currency, processor: deps.providers.processor().kind }
    }
  } catch (error) {
    if (error instanceof ProcessorUnavailable || error instanceof ProcessorDeclined) {
      deps.logger.warn(`Checkout for subscription ${sub.id} not opened: ${error.message}`)
      throw new BadGateway('The card processor could not open a checkout; try again later')
    }
    throw error
  }
}

/**
 * A new subscription of `facility` (the caller's right to create it is checked by the access rule):
 * 1. the organization must exist, the package must be active and suit it (400 naming `fields.package`);
 * 2. the facility must have no live subscription (409 naming it; the unique live key settles races);
 * 3. a free package starts `active`; a package with trial days (or `trial: true`) starts `trialing` until
 *    `trialEndsAt`; every other paid package starts `pending` with a checkout for its price;
 * 4. the organization carries the subscription's id as `subscription`.
 * If the checkout cannot be opened, nothing stays behind (502).
 */
export const createSubscription = async (
  deps: Deps,
  input: { facility: string; package: string; trial?: boolean },
  actor: Actor,
  fields = { package: 'package', facility: 'facility' }
): Promise<Subscription> => {
  const organizations = deps.stores.organizations
  const [organization] = await organizations._find({
    query: { id: input.facility, $limit: 1 },
    paginate: false
  })
  if (!organization)
    throw new NotFound(`No organization found for id '${input.facility}'`, {
      errors: [{ field: fields.facility, message: 'is not an organization' }]
    })
  const pkg = await activePackage(deps, input.package, fields.package)
  const problem = unsuitable(pkg, organization)
  if (problem) throw invalid('data', [{ field: fields.package, message: problem }])
  const live = await liveSubscription(deps, input.facility)
  if (live)
    throw new Conflict(`The facility already has a live subscription (${live.id}, ${live.status})`, {
      errors: [{ field: fields.facility, message: `has subscription ${live.id}` }]
    })

  const at = deps.clock.now()
  const settings = subscriptionSettings(deps)
  const trialDays = pkg.trialDays > 0 ? pkg.trialDays : input.trial ? settings.defaultTrialDays : 0
  const status: SubscriptionStatus = !pkg.requiresPayment ? 'active' : trialDays > 0 ? 'trialing' : 'pending'
  const doc = {
    facility: input.facility,
    ...packageFields(pkg),
    status,
    liveKey: input.facility,
    trialEndsAt: status === 'trialing' ? at + trialDays * dayMs : null,
    currentPeriodStart: status === 'active' ? at : null,
    currentPeriodEnd: status === 'active' ? periodEnd(at, pkg.interval) : null,
    checkoutSession: null,
    updatesPending: {},
    statusHistory: [{ status, at, by: actor.by, reason: 'created' }],
    prorations: [],
    retry: null,
    incompleteAt: null,
    createdAt: at,
    createdBy: actor.by,
    updatedAt: at
  }
  let created: Subscription
  try {
    created = await deps.stores.subscriptions._create(doc)
  } catch (error) {
    if (errorCode(error) === 409)
      throw new Conflict('The facility already has a live subscription', {
        errors: [{ field: fields.facility, message: 'has a live subscription' }]
      })
    throw error
  }
  try {
    if (status === 'pending') {
      const checkout = await openCheckout(
        deps,
        created,
        pkg.price,
        `${pkg.name} (${pkg.interval})`,
        actor.params
      )
      created = await deps.stores.subscriptions._patch(created.id, checkout)
    }
    await organizations._patch(input.facility, { subscription: created.id })
  } catch (error) {
    await deps.stores.subscriptions._remove(created.id)
    throw error
  }
  return created
}

/** The amount a checkout for the pending updates costs: a pending subscription pays its package, others the change. */
const pendingAmount = async (deps: Deps, sub: Subscription, updates: Record<string, unknown>) => {
  const pkg = updates.package
    ? await activePackage(deps, updates.package, 'package')
    : await packageOf(deps, sub)
  let amount = sub.status === 'pending' || updates.package ? pkg.price : 0
  for (const [key, value] of Object.entries(updates)) {
    if (key !== 'package' && value === true) amount += pkg.products[key]?.price ?? 0
  }
  return { amount, pkg }
}

export const packageOf = async (deps: Deps, sub: Pick<Subscription, 'package'>): Promise<Package> => {
  const [pkg] = await deps.stores.packages._find({
    query: { id: sub.package, $limit: 1 },
    paginate: false
  })
  if (!pkg) throw new Conflict(`The subscription's package ${sub.package} no longer exists`)
  return pkg
}

const refuseFinal = (sub: Subscription) => {
  if (isFinal(sub.status))
    throw new Conflict(`The subscription is ${sub.status}, which is final: create a new subscription`, {
      errors: [{ field: 'status', message: `is ${sub.status}` }]
    })
}

/**
 * PATCH { package }:
 * 1. a final subscription: 409; an unknown or inactive package, the current one, or one that does not suit the
 *    facility: 400 naming `package` and why;
 * 2. a free package applies at once (the subscription becomes active for a new period if it was not active or trialing);
 * 3. during a trial, the package changes at once (charged when the trial ends);
 * 4. a paid package while the facility has a paid active subscription applies at once, the price difference for the
 *    rest of the period recorded in `prorations` (settled with the next renewal);
 * 5. otherwise the change waits in `updatesPending` and a checkout for the new package is returned.
 */
export const changePackage = async (deps: Deps, sub: Subscription, packageId: string, actor: Actor) => {
  refuseFinal(sub)
  const pkg = await activePackage(deps, packageId, 'package')
  if (pkg.id === sub.package) throw invalid('data', [{ field: 'package', message: 'is the current package' }])
  const [organization] = await deps.stores.organizations._find({
    query: { id: sub.facility, $limit: 1 },
    paginate: false
  })
  const problem = unsuitable(pkg, organization ?? {})
  if (problem) throw invalid('data', [{ field: 'package', message: problem }])
  const at = deps.clock.now()
  const cleared = { updatesPending: {}, checkoutSession: null, checkout: null }
  if (!pkg.requiresPayment) {
    const restart = sub.status !== 'active' && sub.status !== 'trialing'
    return write(
      deps,
      sub,
      {
        ...packageFields(pkg, sub),
        ...cleared,
        ...(restart
          ? {
              currentPeriodStart: at,
              currentPeriodEnd: periodEnd(at, pkg.interval),
              retry: null,
              incompleteAt: null
            }
          : {})
      },
      {
        status: restart ? 'active' : undefined,
        reason: `package changed to ${pkg.name}`,
        actor
      }
    )
  }
  if (sub.status === 'trialing')
    return write(deps, sub, { ...packageFields(pkg, sub), ...cleared }, { actor })
  if (sub.status === 'active' && sub.price > 0 && pkg.currency === sub.currency) {
    const start = sub.currentPeriodStart ?? at
    const end = sub.currentPeriodEnd ?? at
    const fraction = end > start ? Math.max(0, Math.min(1, (end - at) / (end - start))) : 0
    const proration = {
      from: sub.package,
      to: pkg.id,
      amount: Math.round((pkg.price - sub.price) * fraction),
      currency: pkg.currency,
      at
    }
    return write(
      deps,
      sub,
      { ...packageFields(pkg, sub), ...cleared, prorations: [...(sub.prorations ?? []), proration] },
      { actor }
    )
  }
  const updates = { ...(sub.updatesPending ?? {}), package: pkg.id }
  const { amount } = await pendingAmount(deps, sub, updates)
  const checkout = await openCheckout(deps, sub, amount, `${pkg.name} (${pkg.interval})`, actor.params)
  return write(deps, sub, { updatesPending: updates, ...checkout }, { actor })
}

/**
 * PATCH { <feature>: true|false, … }:
 * 1. a final subscription: 409; a key that is not a feature the package lets a subscriber toggle: 400 naming it;
 * 2. switching off, or on when the toggle is free, applies at once;
 * 3. switching on a paid toggle leaves it as it is: the request is stored in `updatesPending` and a checkout for its
 *    price is returned (the toggle is applied when the checkout completes); a subscription that is not active,
 *    trialing or pending must be paid first (409).
 */
export const toggleFeatures = async (
  deps: Deps,
  sub: Subscription,
  toggles: Record<string, unknown>,
  actor: Actor
) => {
  refuseFinal(sub)
  const pkg = await packageOf(deps, sub)
  const problems = Object.entries(toggles)
    .filter(([key, value]) => {
      const product = pkg.products[key]
      return !product || product.type !== 'feature' || !product.toggleable || typeof value !== 'boolean'
    })
    .map(([key]) => ({
      field: key,
      message: pkg.products[key]
        ? 'is not a feature this package lets you toggle'
        : 'is not a feature of this package'
    }))
  if (problems.length) throw invalid('data', problems)
  const now_: Record<string, boolean> = {}
  const later: Record<string, boolean> = {}
  for (const [key, value] of Object.entries(toggles) as [string, boolean][]) {
    if (value === false || pkg.products[key].price === 0) now_[key] = value
    else if (sub[key] !== true) later[key] = true
  }
  const pendingWithout = Object.fromEntries(
    Object.entries(sub.updatesPending ?? {}).filter(([key]) => !(key in now_))
  )
  if (Object.keys(later).length === 0)
    return write(deps, sub, { ...now_, updatesPending: pendingWithout }, { actor })
  if (!['active', 'trialing', 'pending'].includes(sub.status)) {
    throw new Conflict(`The subscription is ${sub.status}: pay it before adding features`, {
      errors: [
        { field: Object.keys(later)[0], message: `cannot be added while the subscription is ${sub.status}` }
      ]
    })
  }
  const updates = { ...pendingWithout, ...later }
  const { amount } = await pendingAmount(deps, sub, updates)
  const checkout = await openCheckout(
    deps,
    sub,
    amount,
    `${Object.keys(updates)
      .filter((key) => key !== 'package')
      .join(', ')} for ${pkg.name}`,
    actor.params
  )
  return write(deps, sub, { ...now_, updatesPending: updates, ...checkout }, { actor })
}

/**
 * PATCH { status, reason? }:
 * 1. a final subscription cannot be reactivated or changed (409);
 * 2. a facility's superadmin may only cancel (recorded with who and why); every other manual change is for
 *    application admins (403 for anyone else);
 * 3. becoming active starts a period when there is none running.
 */
export const setStatus = async (
  deps: Deps,
  sub: Subscription,
  status: SubscriptionStatus,
  reason: string | undefined,
  actor: Actor & { admin: boolean }
) => {
  refuseFinal(sub)
  if (!actor.admin && status !== 'canceled')
    throw new Forbidden('Only application admins change a subscription status other than canceling it')
  if (status === sub.status) throw invalid('data', [{ field: 'status', message: `is already ${status}` }])
  const at = deps.clock.now()
  const change: Record<string, unknown> = {}
  if (status === 'canceled')
    Object.assign(change, {
      canceledAt: at,
      ...(actor.by ? { canceledBy: actor.by } : {}),
      ...(reason ? { cancelReason: reason } : {}),
      checkoutSession: null,
      checkout: null,
      updatesPending: {}
    })
  if (status === 'active' && !(sub.currentPeriodEnd && sub.currentPeriodEnd > at))
    Object.assign(change, {
      currentPeriodStart: at,
      currentPeriodEnd: periodEnd(at, sub.interval),
      retry: null
    })
  if (status === 'incomplete') change.incompleteAt = at
  const updated = await write(deps, sub, change, {
    status,
    reason: reason ?? (actor.admin ? 'changed by an application admin' : 'canceled by the facility'),
    actor
  })
  return updated
}

/**
 * The facility was removed: its live subscription (when it has one) ends as canceled, recorded with who removed it and
 * announced (realtime, webhooks), so nothing bills or renews an organization that no longer exists.
 */
export const cancelForRemovedFacility = async (deps: Deps, facility: string, by: string | null) => {
  const live = await liveSubscription(deps, facility)
  if (!live) return null
  const reason = 'organization removed'
  const change = {
    canceledAt: deps.clock.now(),
    ...(by ? { canceledBy: by } : {}),
    cancelReason: reason,
    checkoutSession: null,
    checkout: null,
    updatesPending: {}
  }
  return write(deps, live, change, { status: 'canceled', reason, actor: { by }, announce: true })
}

const bySession = async (deps: Deps, session: string): Promise<Subscription | null> => {
  const [sub] = await deps.stores.subscriptions._find({
    query: { 'checkoutSession.id': session, $limit: 1 },
    paginate: false
  })
  return sub ?? null
}

/**
 * The checkout `session` was paid:
 * 1. an unknown session, or one of a final subscription, changes nothing;
 * 2. `updatesPending` is applied (a new package with its base values, then the toggles) and cleared;
 * 3. the subscription becomes active — a new period starts unless it was already active or trialing (those keep
 *    theirs) — and its retries and checkout are cleared.
 */
export const completeCheckout = async (deps: Deps, session: string) => {
  const sub = await bySession(deps, session)
  if (!sub || isFinal(sub.status)) return null
  const at = deps.clock.now()
  const updates = sub.updatesPending ?? {}
  const change: Record<string, unknown> = {
    updatesPending: {},
    checkoutSession: null,
    checkout: null,
    retry: null,
    incompleteAt: null
  }
  if (typeof updates.package === 'string') {
    const [pkg] = await deps.stores.packages._find({
      query: { id: updates.package, $limit: 1 },
      paginate: false
    })
    if (pkg) Object.assign(change, packageFields(pkg, sub))
  }
  for (const [key, value] of Object.entries(updates)) if (key !== 'package') change[key] = value
  const keep = sub.status === 'active' || sub.status === 'trialing'
  if (!keep)
    Object.assign(change, {
      currentPeriodStart: at,
      currentPeriodEnd: periodEnd(at, String(change.interval ?? sub.interval)),
      prorations: []
    })
  return write(deps, sub, change, {
    status: keep ? undefined : 'active',
    reason: 'checkout completed',
    actor: { by: null },
    announce: true
  })
}

/**
 * The checkout `session` failed (declined, expired): a pending subscription becomes `incomplete` — its checkout
 * stays open to try again until the incomplete window ends, or, when the session itself is over (`reopen`: expired,
 * or closed by the processor), a new checkout for the same amount is opened; an active or trialing one drops the
 * updates it waited for; past_due, unpaid and paused ones keep their checkout.
 */
export const failCheckout = async (
  deps: Deps,
  session: string,
  reason = 'checkout failed',
  reopen = false
) => {
  const sub = await bySession(deps, session)
  if (!sub || isFinal(sub.status)) return null
  if (sub.status === 'pending') {
    const amount = (sub.checkout as { amount?: number } | null | undefined)?.amount ?? sub.price // (a hidden field the presenter removes)
    const checkout = reopen ? await checkoutForDue(deps, sub, amount) : {}
    return write(
      deps,
      sub,
      { incompleteAt: deps.clock.now(), ...checkout },
      { status: 'incomplete', reason, actor: { by: null }, announce: true }
    )
  }
  if (sub.status === 'active' || sub.status === 'trialing')
    return write(
      deps,
      sub,
      { updatesPending: {}, checkoutSession: null, checkout: null },
      { actor: { by: null }, announce: true }
    )
  return sub
}

/** For the sandbox checkout page: the subscription and amount behind a session. */
export const checkoutOf = async (deps: Deps, session: string) => {
  const sub = await bySession(deps, session)
  if (!sub) return null
  const checkout = sub.checkout as { amount: number; currency: string } | null // (a hidden field the presenter removes)
  return { subscription: sub, amount: checkout?.amount ?? 0, currency: checkout?.currency ?? sub.currency }
}

/**
 * A charge of the facility's default card (its billing customer at the configured processor):
 * 'paid', 'declined' (no customer, no default card, refused), or 'unavailable' (the processor could not be
 * reached: nothing changes, the next pass tries again).
 */
export const chargeFacility = async (
  deps: Deps,
  sub: Subscription,
  amount: number,
  what: string
): Promise<'paid' | 'declined' | 'unavailable'> => {
  if (amount <= 0) return 'paid'
  const processor = deps.providers.processor()
  const [customer] = await deps.stores.customers._find({
    query: { 'owner.organization': sub.facility, $limit: 1 },
    paginate: false
  })
  if (!customer || customer.processor !== processor.kind) return 'declined'
  try {
    await processor.chargeDefaultCard(customer.processorCustomerId, {
      amount,
      currency: sub.currency,
      reference: referenceOf(sub, what, sub.updatedAt),
      description: `Subscription ${sub.id} (${what})`
    })
    return 'paid'
  } catch (error) {
    if (error instanceof ProcessorDeclined) return 'declined'
    deps.logger.warn(
      `Charging subscription ${sub.id} failed: ${error instanceof Error ? error.message : 'unknown error'}`
    )
    return 'unavailable'
  }
}

/** A checkout for what a past_due, unpaid or paused subscription owes (or null when none can be opened now). */
export const checkoutForDue = async (deps: Deps, sub: Subscription, amount: number) => {
  try {
    return await openCheckout(deps, sub, amount, `Subscription ${sub.id}`)
  } catch {
    return { checkoutSession: null, checkout: null }
  }
}

export { periodEnd }
