// Time drives subscriptions: trial ends, renewals, retries and the expiry of incomplete subscriptions, run by the
// time-driven pass against an injected clock the test moves forward. Every change is recorded in statusHistory,
// published to the facility's members over Socket.IO and delivered to `subscriptions.*` webhooks.
import assert from 'node:assert/strict'
import { http, recordEvents, socketClient, waitUntil } from '../../helpers/app'
import { startWebhookReceiver } from '../../helpers/webhook-receiver'
import {
  DAY,
  followCheckout,
  readSubscription,
  signUpWith,
  startSubsServer,
  waitForStatus,
  type SubsServer
} from '../../helpers/subscriptions'

describe('subscriptions over time (injected clock)', () => {
  let subs: SubsServer
  let url: string
  before(async () => {
    subs = await startSubsServer({
      webhooks: {
        allowPrivate: true,
        retryDelaysMs: [200],
        timeoutMs: 2000,
        pollIntervalMs: 50,
        leaseMarginMs: 30000
      }
    })
    url = subs.server.url
  })
  after(() => subs.server.close())

  const saveCard = async (token: string, facility: string, processorToken: string) => {
    const res = await http(url, 'POST', '/billing/customers', {
      token,
      body: { owner: { organization: facility }, processorToken }
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body
  }

  it('a trial that ends with a default card that can be charged becomes active for a period from the trial end', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-pro'].id)
    await saveCard(owner.token, owner.organization.id, 'tok_visa')
    subs.clock.advance(15 * DAY)
    const sub = await waitForStatus(url, owner.token, owner.subscription.id, 'active')
    assert.equal(sub.currentPeriodStart, owner.subscription.trialEndsAt)
    assert.ok(sub.currentPeriodEnd > sub.currentPeriodStart)
    assert.equal(sub.statusHistory.at(-1).by, null)
  })

  it('a trial that ends without a payment method becomes paused, with a checkout to pay', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-pro'].id)
    subs.clock.advance(15 * DAY)
    const sub = await waitForStatus(url, owner.token, owner.subscription.id, 'paused')
    assert.ok(sub.checkoutSession?.url)
    await followCheckout(sub.checkoutSession.url)
    assert.equal((await readSubscription(url, owner.token, sub.id)).status, 'active')
  })

  it('a renewal charges the default card and starts the next period', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    await followCheckout(owner.subscription.checkoutSession.url)
    await saveCard(owner.token, owner.organization.id, 'tok_visa')
    const paid = await readSubscription(url, owner.token, owner.subscription.id)
    subs.clock.advance(31 * DAY)
    await waitUntil(
      async () =>
        (await readSubscription(url, owner.token, paid.id)).currentPeriodStart === paid.currentPeriodEnd,
      5000,
      'the renewal'
    )
    assert.equal((await readSubscription(url, owner.token, paid.id)).status, 'active')
  })

  it('a failed renewal is past_due, retried on the schedule (1, 3, 5 days), then unpaid', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    await followCheckout(owner.subscription.checkoutSession.url)
    await saveCard(owner.token, owner.organization.id, 'tok_chargeCustomerFail')
    subs.clock.advance(31 * DAY)
    const due = await waitForStatus(url, owner.token, owner.subscription.id, 'past_due')
    assert.equal(due.retry.attempt, 0)
    assert.ok(due.checkoutSession.url, 'past_due carries a checkout to pay')
    subs.clock.advance(1 * DAY + 1000)
    await waitUntil(
      async () => (await readSubscription(url, owner.token, due.id)).retry?.attempt === 1,
      5000,
      'the first retry'
    )
    subs.clock.advance(2 * DAY)
    await waitUntil(
      async () => (await readSubscription(url, owner.token, due.id)).retry?.attempt === 2,
      5000,
      'the second retry'
    )
    subs.clock.advance(2 * DAY)
    const unpaid = await waitForStatus(url, owner.token, due.id, 'unpaid')
    assert.deepEqual(
      unpaid.statusHistory.map((entry: any) => entry.status),
      ['pending', 'active', 'past_due', 'unpaid']
    )
  })

  it('a retry that succeeds (a new default card) makes a past_due subscription active again', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    await followCheckout(owner.subscription.checkoutSession.url)
    const customer = await saveCard(owner.token, owner.organization.id, 'tok_chargeCustomerFail')
    subs.clock.advance(31 * DAY)
    await waitForStatus(url, owner.token, owner.subscription.id, 'past_due')
    const card = await http(url, 'PATCH', `/billing/customers/${customer.id}`, {
      token: owner.token,
      body: { processorToken: 'tok_visa' }
    })
    assert.equal(card.status, 200, JSON.stringify(card.body))
    subs.clock.advance(1 * DAY + 1000)
    const active = await waitForStatus(url, owner.token, owner.subscription.id, 'active')
    assert.equal(active.retry, null)
  })

  it('a pending subscription whose checkout expires unpaid becomes incomplete, with a new checkout to pay', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    subs.clock.advance(23 * 60 * 60 * 1000 + 1000)
    const incomplete = await waitForStatus(url, owner.token, owner.subscription.id, 'incomplete')
    assert.notEqual(incomplete.checkoutSession.id, owner.subscription.checkoutSession.id)
    assert.equal(incomplete.statusHistory.at(-1).reason, 'the checkout expired unpaid')
    assert.equal(
      (await fetch(owner.subscription.checkoutSession.url)).status,
      404,
      'the expired checkout page is gone'
    )
    await followCheckout(incomplete.checkoutSession.url)
    assert.equal((await readSubscription(url, owner.token, owner.subscription.id)).status, 'active')
  })

  it('incomplete becomes incomplete_expired after the window (final), and a new subscription can then be created', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    await followCheckout(owner.subscription.checkoutSession.url, 'fail')
    subs.clock.advance(22 * 60 * 60 * 1000)
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal((await readSubscription(url, owner.token, owner.subscription.id)).status, 'incomplete')
    subs.clock.advance(2 * 60 * 60 * 1000)
    const expired = await waitForStatus(url, owner.token, owner.subscription.id, 'incomplete_expired')
    assert.equal(expired.checkoutSession, null)
    assert.equal(
      (
        await http(url, 'PATCH', `/subscriptions/${expired.id}`, {
          token: subs.admin,
          body: { status: 'active' }
        })
      ).status,
      409
    )
    const fresh = await http(url, 'POST', '/subscriptions', {
      token: owner.token,
      body: { facility: owner.organization.id, package: subs.packages.free.id }
    })
    assert.equal(fresh.status, 201, JSON.stringify(fresh.body))
  })

  it("every status change reaches the facility's members over Socket.IO (nobody else) and its subscriptions.* webhooks", async () => {
    const owner = await signUpWith(url, subs.packages['clinic-pro'].id)
    const outsider = await signUpWith(url, subs.packages.free.id)
    const receiver = await startWebhookReceiver()
    const { client, close } = socketClient(url)
    const stranger = socketClient(url)
    try {
      await stranger.client.authenticate({ strategy: 'jwt', accessToken: outsider.token })
      const strangerEvents = recordEvents(stranger.client, 'subscriptions', ['patched'])
      const hook = await http(url, 'POST', '/webhook-events', {
        token: owner.token,
        body: { organization: owner.organization.id, url: receiver.url, events: 'subscriptions.*' }
      })
      assert.equal(hook.status, 201, JSON.stringify(hook.body))
      receiver.setSecret(hook.body.secret)
      await client.authenticate({ strategy: 'jwt', accessToken: owner.token })
      const events = recordEvents(client, 'subscriptions', ['patched'])
      subs.clock.advance(15 * DAY)
      await waitUntil(
        () => events.some((e) => e.data.id === owner.subscription.id && e.data.status === 'paused'),
        5000,
        'the realtime event'
      )
      assert.equal(events[0].data.liveKey, undefined)
      await receiver.waitForCount(1)
      const delivered = receiver.received.find((r) => r.body.event === 'subscriptions.patch')
      assert.ok(delivered, JSON.stringify(receiver.received.map((r) => r.body)))
      assert.equal(delivered.body.payload.status, 'paused')
      assert.equal(delivered.body.payload.checkout, undefined)
      assert.equal(
        strangerEvents.some((e) => e.data.id === owner.subscription.id),
        false,
        "another facility's member hears nothing"
      )
    } finally {
      stranger.close()
      close()
      await receiver.close()
    }
  })
})
