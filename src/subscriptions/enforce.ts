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
import type { Deps } from '../deps'
import { appSlot } from '../runtime'
import { DerivedCache } from '../store'
import type { Subscription } from '../services/subscriptions/subscriptions.schema'
import { baseValues, defaultPackage } from './packages'
import { liveSubscription, packageOf } from './lifecycle'

/** A stored document or a create body, as the hook hands it over. */
export type FacilityDoc = Record<string, unknown>

interface FacilityData {
  /** The facility a stored document (or a create body that names it) belongs to. */
  facility(doc: FacilityDoc): unknown
  /** The facility a create body goes under, when the body names a parent instead (looked up internally). */
  parent?: { store: 'invoices' | 'items'; field: string }
  /** The feature the service (or this document) needs, or undefined. */
  feature?(doc: FacilityDoc): string | undefined
}

const DENTAL_RECORDS = ['dental-history', 'dental-note']
const byFacility = (doc: FacilityDoc) => doc.facility
const inventory = () => 'inventory'
/** `doc[outer][inner]`, when `doc[outer]` is an object. */
const nested = (doc: FacilityDoc, outer: string, inner: string) => {
  const value = doc[outer]
  return value && typeof value === 'object' ? (value as FacilityDoc)[inner] : undefined
}

/** Every service holding facility data, how to find a document's facility, and the feature it needs. */
export const FACILITY_DATA: Record<string, FacilityData> = {
  'medical-records': {
    facility: byFacility,
    feature: (doc) => (DENTAL_RECORDS.includes(String(doc.type)) ? 'dental' : undefined)
  },
  'medical-encounters': { facility: byFacility },
  services: { facility: byFacility },
  'billing-invoices': { facility: byFacility },
  'billing-items': { facility: byFacility, parent: { store: 'invoices', field: 'invoice' } },
  'billing-payments': { facility: byFacility, parent: { store: 'items', field: 'item' } },
  'billing-payment-intents': { facility: byFacility, feature: () => 'onlinePayments' },
  'request/orders': { facility: (doc) => nested(doc, 'owner', 'organization') },
  'inventory-stockrooms': { facility: byFacility, feature: inventory },
  'inventory-variants': { facility: byFacility, feature: inventory },
  'inventory-stocks': { facility: byFacility, feature: inventory },
  'inventory-stock-movements': { facility: byFacility, feature: inventory },
  webhooks: { facility: (doc) => doc.organization },
  // Installing an organization's webhook (POST /webhook-events { organization, … }).
  'webhook-events': { facility: (doc) => doc.organization },
  // Files on records and encounters (a create body gets the parent's facility before this check).
  attachments: { facility: (doc) => doc.organization },
  // A facility's patient list (names, emails, phones of its patients).
  patients: { facility: byFacility }
}

const READ_ONLY = ['past_due', 'unpaid', 'paused']

export interface Standing {
  subscription: Subscription | null
  /** Feature values in force. */
  features: Record<string, unknown>
}

/**
 * The standings read per facility, kept while the subscriptions and the packages are unchanged (on the embedded
 * engine; MongoDB reads each time): a change of a subscription's status or features, or of a package, is seen by
 * the very next call. Held per app, on its stores.
 */
const standingsSlot = appSlot<DerivedCache<string, Standing>>('subscription standings')

/** The facility's subscription in force and its feature values (shared: never change them). */
export const standingOf = (deps: Deps, facility: string): Promise<Standing> =>
  standingsSlot
    .ensure(deps.stores, () => new DerivedCache([deps.stores.subscriptions, deps.stores.packages]))
    .get(facility, () => readStanding(deps, facility))

const readStanding = async (deps: Deps, facility: string): Promise<Standing> => {
  const subscription = await liveSubscription(deps, facility)
  if (!subscription) return { subscription: null, features: baseValues(await defaultPackage(deps)) }
  if (subscription.status === 'incomplete')
    return { subscription, features: baseValues(await packageOf(deps, subscription)) }
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
  deps: Deps,
  declared: FacilityData,
  doc: FacilityDoc
): Promise<string | undefined> => {
  const direct = declared.facility(doc)
  if (typeof direct === 'string' && direct) return direct
  const parentId = declared.parent ? doc[declared.parent.field] : undefined
  if (declared.parent && typeof parentId === 'string') {
    const query = { id: parentId, $limit: 1 }
    const [parent] =
      declared.parent.store === 'invoices'
        ? await deps.stores.invoices._find({ query, paginate: false })
        : await deps.stores.items._find({ query, paginate: false })
    const facility = parent?.facility
    return typeof facility === 'string' ? facility : undefined
  }
  return undefined
}

/** The call being judged: its service path, its method, and whether it came from a client. */
export interface EnforcedCall {
  path: string
  method: string
  /** The transport (`rest`, `socketio`); undefined for an internal call. */
  provider?: string
  query?: Record<string, unknown>
}

/**
 * Before a write (create: the body; patch/update/remove: the document as stored) or after a get (the result):
 * refuses with 402 what the facility's subscription does not allow. Internal calls are not checked.
 */
export const enforceSubscription = async (deps: Deps, call: EnforcedCall, doc: unknown) => {
  const declared = FACILITY_DATA[call.path]
  if (!declared || !call.provider || !doc || typeof doc !== 'object') return
  const facility = await facilityOf(deps, declared, doc as FacilityDoc)
  if (!facility) return
  const standing = await standingOf(deps, facility)
  if (call.method !== 'find' && call.method !== 'get') refuseWrite(standing)
  refuseFeature(standing, declared.feature?.(doc as FacilityDoc))
}

/** A find that names one facility (`facility=<id>`) is refused when the feature its service needs is off there. */
export const enforceSubscriptionOnFind = async (deps: Deps, call: EnforcedCall) => {
  const declared = FACILITY_DATA[call.path]
  const facility = call.query?.facility ?? call.query?.organization
  if (!declared?.feature || !call.provider || typeof facility !== 'string') return
  refuseFeature(await standingOf(deps, facility), declared.feature({ facility }))
}
