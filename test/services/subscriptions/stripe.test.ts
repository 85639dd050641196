// Subscriptions with the Stripe processor, against the local HTTP stand-in for Stripe: a paid sign-up opens a
// Checkout Session; its outcome arrives as a signed event at POST /processor/events (a forged or unsigned one is
// a 400 and changes nothing); renewals charge the facility's default card with an off-session PaymentIntent.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { http, waitUntil } from '../../helpers/app'
import { startStripeServer, stripeSignature, type StripeServer } from '../../helpers/stripe-server'
import {
  DAY,
  readSubscription,
  signUpWith,
  startSubsServer,
  waitForStatus,
  type SubsServer
} from '../../helpers/subscriptions'

describe('subscriptions with the Stripe processor (local Stripe stand-in)', () => {
  let stripe: StripeServer
  let subs: SubsServer
  let url: string
  let events: string
  const webhookSecret = `whsec_${crypto.randomBytes(12).toString('hex')}`
  before(async () => {
    stripe = await startStripeServer()
    subs = await startSubsServer({
      processor: {
        kind: 'stripe',
        timeoutMs: 3000,
        stripe: {
          secretKey: stripe.secretKey,
          host: '127.0.0.1',
          port: String(stripe.port),
          protocol: 'http',
          webhookSecret
        }
      }
    })
    url = subs.server.url
    events = `${url}/processor/events`
  })
  after(async () => {
    await subs.server.close()
    await stripe.close()
  })

  it('a paid sign-up is pending with a Stripe Checkout Session for the package price', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    const sub = owner.subscription
    assert.equal(sub.status, 'pending')
    assert.match(sub.checkoutSession.id, /^cs_test_/)
    const session = stripe.checkoutSessions.get(sub.checkoutSession.id)!
    assert.equal(sub.checkoutSession.url, session.url)
    assert.equal(session.amount_total, 4900)
    assert.equal(session.currency, 'usd')
    assert.equal(session.mode, 'payment')
    assert.ok(session.client_reference_id?.includes(sub.id))
    assert.ok(stripe.requests.every((r) => r.authorization === `Bearer ${stripe.secretKey}`))
  })

  it('a checkout.session.completed event with a valid signature makes it active', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    assert.equal(
      await stripe.finishCheckout(owner.subscription.checkoutSession.id, 'completed', events, webhookSecret),
      200
    )
    const sub = await readSubscription(url, owner.token, owner.subscription.id)
    assert.equal(sub.status, 'active')
    assert.ok(sub.currentPeriodEnd > Date.now())
  })

  it('an event signed with another secret, or not signed, is a 400 and changes nothing', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    const forged = stripeSignature('{"type":"checkout.session.completed"}', 'whsec_wrong')
    assert.equal(
      await stripe.finishCheckout(owner.subscription.checkoutSession.id, 'completed', events, 'whsec_wrong'),
      400
    )
    assert.equal(
      await stripe.finishCheckout(
        owner.subscription.checkoutSession.id,
        'completed',
        events,
        webhookSecret,
        forged
      ),
      400
    )
    const unsigned = await http(url, 'POST', '/processor/events', {
      body: {
        type: 'checkout.session.completed',
        data: { object: { id: owner.subscription.checkoutSession.id } }
      }
    })
    assert.equal(unsigned.status, 400)
    assert.equal((await readSubscription(url, owner.token, owner.subscription.id)).status, 'pending')
  })

  it('a checkout.session.expired event makes a pending subscription incomplete, with a new Checkout Session to pay', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    assert.equal(
      await stripe.finishCheckout(owner.subscription.checkoutSession.id, 'expired', events, webhookSecret),
      200
    )
    const incomplete = await readSubscription(url, owner.token, owner.subscription.id)
    assert.equal(incomplete.status, 'incomplete')
    // The expired session cannot be paid: a new Checkout Session is opened for the same amount.
    assert.notEqual(incomplete.checkoutSession.id, owner.subscription.checkoutSession.id)
    assert.equal(stripe.checkoutSessions.get(incomplete.checkoutSession.id)?.amount_total, 4900)
    assert.equal(
      await stripe.finishCheckout(incomplete.checkoutSession.id, 'completed', events, webhookSecret),
      200
    )
    assert.equal((await readSubscription(url, owner.token, owner.subscription.id)).status, 'active')
  })

  it('a sign-up whose checkout Stripe cannot open is a 502 and leaves no account, organization or subscription behind', async () => {
    const email = `stripe-down-${Date.now()}@example.test`
    const before = (await (subs.server.app.service('organizations' as any) as any)._find({ paginate: false }))
      .length
    stripe.mode = 'fail'
    stripe.failOnly = /^POST \/v1\/checkout\/sessions$/
    try {
      const res = await http(url, 'POST', '/accounts', {
        body: {
          email,
          password: 'correct horse battery',
          organization: {
            name: 'Down',
            type: 'facility',
            types: ['clinic'],
            subscription: { package: subs.packages['clinic-plus'].id }
          }
        }
      })
      assert.equal(res.status, 502, JSON.stringify(res.body))
      assert.doesNotMatch(JSON.stringify(res.body), /sk_test|Something went wrong/)
    } finally {
      stripe.mode = 'ok'
      stripe.failOnly = undefined
    }
    assert.equal(
      (await http(url, 'POST', '/authentication', { body: { email, password: 'correct horse battery' } }))
        .status,
      401
    )
    assert.equal(
      (await (subs.server.app.service('organizations' as any) as any)._find({ paginate: false })).length,
      before
    )
    assert.equal(
      (
        await (subs.server.app.service('subscriptions' as any) as any)._find({
          query: { status: 'pending', checkoutSession: null },
          paginate: false
        })
      ).length,
      0
    )
  })

  it('renewals charge the default card (succeeded: next period; declined: past_due)', async () => {
    const good = await signUpWith(url, subs.packages['clinic-plus'].id)
    const bad = await signUpWith(url, subs.packages['clinic-plus'].id)
    for (const [owner, token] of [
      [good, 'tok_visa'],
      [bad, 'tok_chargeCustomerFail']
    ] as const) {
      await stripe.finishCheckout(owner.subscription.checkoutSession.id, 'completed', events, webhookSecret)
      const customer = await http(url, 'POST', '/billing/customers', {
        token: owner.token,
        body: { owner: { organization: owner.organization.id }, processorToken: token }
      })
      assert.equal(customer.status, 201, JSON.stringify(customer.body))
    }
    const paid = await readSubscription(url, good.token, good.subscription.id)
    subs.clock.advance(31 * DAY)
    await waitUntil(
      async () =>
        (await readSubscription(url, good.token, paid.id)).currentPeriodStart === paid.currentPeriodEnd,
      5000,
      'the renewal'
    )
    await waitForStatus(url, bad.token, bad.subscription.id, 'past_due')
    assert.ok(
      stripe.paymentIntents.some(
        (pi) => pi.status === 'succeeded' && pi.amount === 4900 && pi.currency === 'usd'
      )
    )
    assert.ok(stripe.paymentIntents.some((pi) => pi.status === 'requires_payment_method'))
  })
})
