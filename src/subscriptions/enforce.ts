// What a facility's subscription status means for its data, in one place for every service that holds facility
// data (called by the single access path, src/hooks/scope-access.ts, once the caller's rights are checked):
// - no live subscription (none, or canceled / incomplete_expired), or `incomplete`: every feature at its
//   package's base value (without a subscription: the configured default package's);
// - `active`, `trialing`: the subscription's own feature values;
// - `pending`: reads work; every write of the facility's data is a 402 until the subscription is active;
// - `past_due`, `unpaid`, `paused`: the facility's data is read-only — every write is a 402 naming the status and
//   carrying the checkout to pay (or the subscription id);
// - a feature that is off refuses its service (reads and writes) with a 402 naming the feature.
// Account, organization and member management, billing customers (cards) and the subscription itself are not
// facility data here, so they keep working in every status.
import { PaymentError } from '@feathersjs/errors'
import type { Application, HookContext } from '../declarations'
import type { Subscription } from '../services/subscriptions/subscriptions.schema'
import { baseValues, defaultPackage } from './packages'
import { liveSubscription, packageOf } from './lifecycle'
import { serviceAt } from '../store'

interface FacilityData {
  /** The facility a stored document (or a create body that names it) belongs to. */
  facility(doc: any): unknown
  /** The facility a create body goes under, when the body names a parent instead (looked up internally). */
  parent?: { path: string; field: string }
  /** The feature the service (or this document) needs, if any. */
  feature?(doc: any): string | undefined
}

const DENTAL_RECORDS = ['dental-history', 'dental-note']
const byFacility = (doc: any) => doc?.facility
const inventory = () => 'inventory'

/** Every service holding facility data, how to find a document's facility, and the feature it needs. */
export const FACILITY_DATA: Record<string, FacilityData> = {
  'medical-records': {
    facility: byFacility,
    feature: (doc) => (DENTAL_RECORDS.includes(doc?.type) ? 'dental' : undefined)
  },
  'medical-encounters': { facility: byFacility },
  services: { facility: byFacility },
  'billing-invoices': { facility: byFacility },
  'billing-items': { facility: byFacility, parent: { path: 'billing-invoices', field: 'invoice' } },
  'billing-payments': { facility: byFacility, parent: { path: 'billing-items', field: 'item' } },
  'billing-payment-intents': { facility: byFacility, feature: () => 'onlinePayments' },
  'request/orders': { facility: (doc) => doc?.owner?.organization },
  'inventory-stockrooms': { facility: byFacility, feature: inventory },
  'inventory-variants': { facility: byFacility, feature: inventory },
  'inventory-stocks': { facility: byFacility, feature: inventory },
  'inventory-stock-movements': { facility: byFacility, feature: inventory },
  webhooks: { facility: (doc) => doc?.organization },
  // Installing an organization's webhook (POST /webhook-events { organization, … }).
  'webhook-events': { facility: (doc) => doc?.organization }
}

const READ_ONLY = ['past_due', 'unpaid', 'paused']

export interface Standing {
  subscription: Subscription | null
  /** Feature values in force. */
  features: Record<string, unknown>
}

/** The facility's subscription in force and its feature values. */
export const standingOf = async (app: Application, facility: string): Promise<Standing> => {
  const subscription = await liveSubscription(app, facility)
  if (!subscription) return { subscription: null, features: baseValues(await defaultPackage(app)) }
  if (subscription.status === 'incomplete')
    return { subscription, features: baseValues(await packageOf(app, subscription)) }
  return { subscription, features: subscription }
}

const paymentData = (sub: Subscription) => ({
  status: sub.status,
  subscription: sub.id,
  ...(sub.checkoutSession ? { checkoutSession: { url: sub.checkoutSession.url } } : {})
})

const refuseFeature = (standing: Standing, feature: string | undefined) => {
  if (feature && standing.features[feature] !== true) {
    throw new PaymentError(`The feature '${feature}' is not part of this facility's subscription`, {
      feature,
      ...(standing.subscription ? { subscription: standing.subscription.id } : {})
    })
  }
}

const refuseWrite = (standing: Standing) => {
  const sub = standing.subscription
  if (!sub) return
  if (sub.status === 'pending') {
    throw new PaymentError(
      "The facility's subscription is pending: complete its checkout before changing the facility's data",
      paymentData(sub)
    )
  }
  if (READ_ONLY.includes(sub.status)) {
    throw new PaymentError(
      `The facility's subscription is ${sub.status}: its data is read-only until the subscription is paid`,
      paymentData(sub)
    )
  }
}

const facilityOf = async (
  app: Application,
  declared: FacilityData,
  doc: any
): Promise<string | undefined> => {
  const direct = declared.facility(doc)
  if (typeof direct === 'string' && direct) return direct
  if (declared.parent && doc && typeof doc[declared.parent.field] === 'string') {
    const [parent] = await serviceAt(app, declared.parent.path)._find({
      query: { id: doc[declared.parent.field], $limit: 1 },
      paginate: false
    })
    const facility = parent?.facility
    return typeof facility === 'string' ? facility : undefined
  }
  return undefined
}

/**
 * Before a write (create: the body; patch/update/remove: the document as stored) or after a get (the result):
 * refuses with 402 what the facility's subscription does not allow. Internal calls are not checked.
 */
export const enforceSubscription = async (context: HookContext, doc: any) => {
  const declared = FACILITY_DATA[context.path]
  if (!declared || !context.params.provider || !doc || typeof doc !== 'object') return
  const facility = await facilityOf(context.app, declared, doc)
  if (!facility) return
  const standing = await standingOf(context.app, facility)
  if (context.method !== 'find' && context.method !== 'get') refuseWrite(standing)
  refuseFeature(standing, declared.feature?.(doc))
}

/** A find that names one facility (`facility=<id>`) is refused when the feature its service needs is off there. */
export const enforceSubscriptionOnFind = async (context: HookContext) => {
  const declared = FACILITY_DATA[context.path]
  const facility = context.params.query?.facility ?? context.params.query?.organization
  if (!declared?.feature || !context.params.provider || typeof facility !== 'string') return
  refuseFeature(await standingOf(context.app, facility), declared.feature({ facility }))
}
