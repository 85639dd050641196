// The current facility's subscription: its package by name with the price (formatted in its currency) and
// features, the open checkout to pay, a change of package (superadmins), and — when the facility is read-only or
// waiting for payment — what that status means for the staff's work, in words.
import { client, loadOrganizations, useLive, useSession, when } from '../../lib/api'
import { formatMoney } from '../../lib/money'
import { EmptyState, ErrorText, Field, Form, Status } from '../../components'
import type { Subscription as SubscriptionDoc } from '../../../src/services/subscriptions/subscriptions.shared'
import type { Package } from '../../../src/services/subscription-packages/subscription-packages.shared'

/** Each status's effect on the facility, as its staff experience it. */
const statusEffects: Record<string, { title: string; effect: string }> = {
  pending: {
    title: 'Waiting for the first payment',
    effect:
      'Everyone can read the facility’s data, but nothing can be added or changed (records, billing, orders, inventory, webhooks) until the checkout below is paid.'
  },
  trialing: { title: 'On trial', effect: 'Everything the package includes works until the trial ends.' },
  active: { title: 'Active', effect: 'Everything the package includes works.' },
  incomplete: {
    title: 'First payment failed',
    effect: 'The package’s basic features work; pay the open checkout to use everything it includes.'
  },
  incomplete_expired: {
    title: 'Expired before it was paid',
    effect: 'The facility works as on the free package. Subscribe again to use a paid package.'
  },
  past_due: {
    title: 'Read-only: a renewal payment failed',
    effect:
      'Staff can read everything but cannot add or change records, bills, orders, stock or webhooks. Payment is retried automatically; paying the checkout below ends this at once.'
  },
  unpaid: {
    title: 'Read-only: every retry of the renewal failed',
    effect:
      'Staff can read everything but cannot add or change records, bills, orders, stock or webhooks until the subscription is paid.'
  },
  paused: {
    title: 'Read-only: the trial ended without a card that could be charged',
    effect:
      'Staff can read everything but cannot add or change records, bills, orders, stock or webhooks until the subscription is paid.'
  },
  canceled: {
    title: 'Canceled',
    effect: 'The facility works as on the free package. Subscribe again to use a paid package.'
  }
}

const price = (p: { price: number; currency: string; interval: string }) =>
  p.price === 0 ? 'No charge' : `${formatMoney(p.price, p.currency)} per ${p.interval}`

const featureName = (key: string) =>
  ({
    pme: 'Patient medical records',
    dental: 'Dental records',
    inventory: 'Inventory',
    onlinePayments: 'Online payments',
    lis: 'Laboratory (LIS)',
    ris: 'Radiology (RIS)',
    pharmacy: 'Pharmacy',
    onlineBooking: 'Online booking',
    memberSeatsMax: 'Member seats',
    storageMax: 'Storage',
    smsCreditsMax: 'SMS credits'
  })[key] ?? key

export function Subscription(_props: { params: Record<string, string> }) {
  const session = useSession()
  const facility = session.current
  const subscriptions = useLive<SubscriptionDoc>(
    'subscriptions',
    facility ? { facility, $sort: { createdAt: -1 }, $limit: 1 } : null
  )
  const packages = useLive<Package>('subscription/packages', { type: 'facility', active: true, $limit: 100 })
  const manage = !!facility && session.isSuperadmin(facility)
  if (!facility)
    return (
      <section>
        <h1>Subscription</h1>
        <EmptyState title="A subscription belongs to a facility, and you are not a member of one yet." />
      </section>
    )
  const subscription = subscriptions.data[0]
  const current = packages.data.find((p) => p.id === subscription?.package)
  // A package suits the facility when it is for every kind or for one of the facility's kinds.
  const kinds = session.organizations.find((o) => o.id === facility)?.types ?? []
  const suitable = packages.data.filter((p) => p.types.length === 0 || p.types.some((k) => kinds.includes(k)))
  const effect = subscription ? statusEffects[subscription.status] : undefined
  const pendingId = (subscription?.updatesPending as { package?: string } | null | undefined)?.package
  const pendingPackage = pendingId ? packages.data.find((p) => p.id === pendingId) : undefined
  const features = current
    ? Object.entries(current.products).map(([key, product]) => {
        const value = subscription ? (subscription as Record<string, unknown>)[key] : product.base
        return {
          key,
          text:
            product.type === 'feature'
              ? `${featureName(key)}: ${value === true ? 'included' : 'not included'}`
              : `${featureName(key)}: ${String(value ?? product.base)}`
        }
      })
    : []
  return (
    <section>
      <h1>Subscription of {session.organizationName(facility)}</h1>
      <ErrorText message={subscriptions.error || packages.error} />
      {!subscription ? (
        <EmptyState title="This facility has no subscription: it works as on the free package." />
      ) : (
        <div class="card" id="subscription">
          <h2>
            <span id="package-name">{current?.name ?? 'Package'}</span> ·{' '}
            <span class="money" id="package-price">
              {price(subscription)}
            </span>
          </h2>
          <p id="subscription-status" class={`notice status-${subscription.status}`}>
            <strong>{effect?.title ?? subscription.status}.</strong> {effect?.effect}
          </p>
          {pendingPackage && (
            <p id="pending-change">
              Changing to <strong>{pendingPackage.name}</strong> (
              <span class="money">{price(pendingPackage)}</span>) once the checkout is paid.
            </p>
          )}
          {subscription.trialEndsAt && subscription.status === 'trialing' && (
            <p>The trial ends {when(subscription.trialEndsAt)}.</p>
          )}
          {subscription.currentPeriodEnd && (
            <p>The current period ends {when(subscription.currentPeriodEnd)}.</p>
          )}
          {features.length > 0 && (
            <>
              <h3>Features</h3>
              <ul id="features">
                {features.map((f) => (
                  <li key={f.key}>{f.text}</li>
                ))}
              </ul>
            </>
          )}
          {subscription.checkoutSession ? (
            <p>
              <a class="button" id="checkout-link" href={subscription.checkoutSession.url} rel="noopener">
                Pay at the checkout
              </a>{' '}
              (open until {when(subscription.checkoutSession.expiresAt)})
            </p>
          ) : (
            <p>Nothing to pay now.</p>
          )}
        </div>
      )}
      {manage && kinds.length === 0 && (
        <Form
          id="kind-form"
          title="What kind of facility is this?"
          heading="h2"
          submitLabel="Save"
          onSubmit={async (data) => {
            await client.service('organizations').patch(facility, { types: [String(data.get('kind'))] })
            await loadOrganizations()
          }}
        >
          <p>Packages are made for kinds of facility; choose yours to see the packages that suit it.</p>
          <Field label="Kind" name="kind" as="select">
            <option value="clinic">Clinic</option>
            <option value="diagnostic-center">Diagnostic center</option>
            <option value="pharmacy">Pharmacy</option>
          </Field>
        </Form>
      )}
      {manage && suitable.length > 0 && (
        <Form
          id="package-form"
          title={subscription ? 'Change package' : 'Subscribe'}
          heading="h2"
          submitLabel={subscription ? 'Change package' : 'Subscribe'}
          success={subscription ? 'Package changed.' : 'Subscribed.'}
          reset={false}
          onSubmit={async (data) => {
            const chosen = String(data.get('package'))
            if (subscription)
              await client.service('subscriptions').patch(subscription.id, { package: chosen })
            else await client.service('subscriptions').create({ facility, package: chosen })
          }}
        >
          <Field
            label="Package"
            name="package"
            as="select"
            defaultValue={subscription?.package}
            hint="A paid package takes effect once its checkout is paid; the checkout link appears above."
          >
            {suitable.map((p) => (
              <option value={p.id} key={p.id}>
                {p.name} · {price(p)}
              </option>
            ))}
          </Field>
        </Form>
      )}
      {!manage && <Status>Only the facility’s superadmins change its package.</Status>}
    </section>
  )
}
