// Subscriptions over HTTP with the sandbox processor: sign-up with a free, a paid and a trial package; the
// sandbox checkout page followed like a plain HTTP client; package changes with and without checkout; a toggle
// through updatesPending; status changes by admins and superadmins; final statuses.
import assert from 'node:assert/strict'
import { http, signUp, uniqueEmail } from '../../helpers/app'
import {
  followCheckout,
  readSubscription,
  signUpWith,
  startSubsServer,
  type SubsServer
} from '../../helpers/subscriptions'
import { fieldsOf } from '../../helpers/billing'

describe('subscriptions (sandbox processor)', () => {
  let subs: SubsServer
  let url: string
  before(async () => {
    subs = await startSubsServer()
    url = subs.server.url
  })
  after(() => subs.server.close())

  describe('packages', () => {
    it('lists the configured packages to anyone, signed in or not, with requiresPayment derived from the price', async () => {
      const res = await http(url, 'GET', '/subscription/packages')
      assert.equal(res.status, 200)
      const keys = res.body.data.map((pkg: any) => pkg.key).sort()
      assert.deepEqual(keys, ['clinic-plus', 'clinic-pro', 'diagnostics', 'free'])
      assert.equal(subs.packages.free.requiresPayment, false)
      assert.equal(subs.packages['clinic-plus'].requiresPayment, true)
      assert.equal(subs.packages['clinic-plus'].products.lis.toggleable, true)
    })

    it('filters by type and by a facility kind the package suits', async () => {
      const res = await http(url, 'GET', '/subscription/packages?type=facility&types=diagnostic-center')
      assert.deepEqual(res.body.data.map((pkg: any) => pkg.key).sort(), ['clinic-pro', 'diagnostics', 'free'])
    })

    it('lets an application admin create and change packages, and nobody else (403; 401 without a token)', async () => {
      const body = {
        name: 'Dental only',
        type: 'facility',
        types: ['clinic'],
        price: 1500,
        currency: 'USD',
        products: { dental: { type: 'feature', base: true, toggleable: false, price: 0 } }
      }
      const user = await signUp(url)
      assert.equal((await http(url, 'POST', '/subscription/packages', { body })).status, 401)
      assert.equal(
        (await http(url, 'POST', '/subscription/packages', { body, token: user.token })).status,
        403
      )
      const created = await http(url, 'POST', '/subscription/packages', { body, token: subs.admin })
      assert.equal(created.status, 201, JSON.stringify(created.body))
      assert.equal(created.body.requiresPayment, true)
      assert.equal(created.body.active, true)
      assert.equal(
        (
          await http(url, 'PATCH', `/subscription/packages/${created.body.id}`, {
            body: { price: 0 },
            token: user.token
          })
        ).status,
        403
      )
      const patched = await http(url, 'PATCH', `/subscription/packages/${created.body.id}`, {
        body: { price: 0 },
        token: subs.admin
      })
      assert.equal(patched.status, 200)
      assert.equal(patched.body.requiresPayment, false)
    })

    it('refuses a product named like a subscription field, naming it (400)', async () => {
      const res = await http(url, 'POST', '/subscription/packages', {
        token: subs.admin,
        body: {
          name: 'X',
          type: 'facility',
          price: 0,
          currency: 'USD',
          products: { status: { type: 'feature', base: true, toggleable: false, price: 0 } }
        }
      })
      assert.equal(res.status, 400)
      assert.deepEqual(fieldsOf(res.body), ['products.status'])
    })
  })

  describe('sign-up with a subscription', () => {
    it('a free package: the subscription is active and the organization carries its id', async () => {
      const email = uniqueEmail()
      const res = await http(url, 'POST', '/accounts', {
        body: {
          email,
          password: 'correct horse battery',
          organization: {
            name: 'Free clinic',
            type: 'facility',
            types: ['clinic'],
            subscription: { package: subs.packages.free.id }
          }
        }
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.equal(res.body.subscription.status, 'active')
      assert.equal(res.body.subscription.facility, res.body.organization.id)
      assert.equal(res.body.organization.subscription, res.body.subscription.id)
      assert.equal(res.body.subscription.checkoutSession, null)
      assert.equal(res.body.subscription.pme, true)
      assert.equal(res.body.subscription.lis, false)
      assert.equal(res.body.subscription.liveKey, undefined)
      assert.equal(res.body.password, undefined)
    })

    it('a paid package: pending with a checkout session; completing the sandbox checkout page makes it active', async () => {
      const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
      const sub = owner.subscription
      assert.equal(sub.status, 'pending')
      assert.match(sub.checkoutSession.id, /^cs_sandbox_/)
      assert.ok(sub.checkoutSession.url.startsWith(url))
      assert.ok(sub.checkoutSession.expiresAt > Date.now())
      const done = await followCheckout(sub.checkoutSession.url)
      assert.ok(done.headers.get('location')?.endsWith('/processor/checkout/done'))
      const paid = await readSubscription(url, owner.token, sub.id)
      assert.equal(paid.status, 'active')
      assert.ok(paid.currentPeriodEnd > Date.now())
      assert.equal(paid.checkoutSession, null)
      assert.deepEqual(
        paid.statusHistory.map((entry: any) => entry.status),
        ['pending', 'active']
      )
    })

    it('a failed first payment makes it incomplete; the checkout stays open to try again', async () => {
      const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
      await followCheckout(owner.subscription.checkoutSession.url, 'fail')
      const failed = await readSubscription(url, owner.token, owner.subscription.id)
      assert.equal(failed.status, 'incomplete')
      await followCheckout(failed.checkoutSession.url, 'pay')
      assert.equal((await readSubscription(url, owner.token, owner.subscription.id)).status, 'active')
    })

    it('a package with trial days: trialing until trialEndsAt, with no checkout', async () => {
      const owner = await signUpWith(url, subs.packages['clinic-pro'].id)
      assert.equal(owner.subscription.status, 'trialing')
      assert.equal(owner.subscription.checkoutSession, null)
      assert.ok(Math.abs(owner.subscription.trialEndsAt - (Date.now() + 14 * 24 * 3600 * 1000)) < 60_000)
    })

    it('trial: true on a paid package without trial days starts the default trial', async () => {
      const owner = await signUpWith(url, subs.packages['clinic-plus'].id, { trial: true })
      assert.equal(owner.subscription.status, 'trialing')
      assert.ok(owner.subscription.trialEndsAt > Date.now())
    })

    it('an unknown package is a 400 naming it, and no account, organization or subscription is left behind', async () => {
      const email = uniqueEmail()
      const before = (
        await (subs.server.app.service('organizations' as any) as any)._find({ paginate: false })
      ).length
      const res = await http(url, 'POST', '/accounts', {
        body: {
          email,
          password: 'correct horse battery',
          organization: {
            name: 'Ghost',
            type: 'facility',
            types: ['clinic'],
            subscription: { package: 'nope' }
          }
        }
      })
      assert.equal(res.status, 400)
      assert.deepEqual(fieldsOf(res.body), ['organization.subscription.package'])
      assert.equal(
        (await http(url, 'POST', '/authentication', { body: { email, password: 'correct horse battery' } }))
          .status,
        401
      )
      assert.equal(
        (await (subs.server.app.service('organizations' as any) as any)._find({ paginate: false })).length,
        before
      )
    })

    it('a package that does not suit the facility kind is a 400 saying why', async () => {
      const res = await http(url, 'POST', '/accounts', {
        body: {
          email: uniqueEmail(),
          password: 'correct horse battery',
          organization: {
            name: 'Pharmacy',
            type: 'facility',
            types: ['pharmacy'],
            subscription: { package: subs.packages['clinic-plus'].id }
          }
        }
      })
      assert.equal(res.status, 400)
      assert.deepEqual(fieldsOf(res.body), ['organization.subscription.package'])
      assert.match(res.body.errors[0].message, /suits clinic/)
    })
  })

  describe('POST /subscriptions', () => {
    it('subscribes a facility without one (its superadmin), and a second while one is live is a 409', async () => {
      const owner = await signUp(url, {
        organization: { name: 'Later', type: 'facility', types: ['clinic'] }
      })
      const facility = owner.organization.id
      const created = await http(url, 'POST', '/subscriptions', {
        token: owner.token,
        body: { facility, package: subs.packages.free.id }
      })
      assert.equal(created.status, 201, JSON.stringify(created.body))
      assert.equal(created.body.status, 'active')
      const org = await http(url, 'GET', `/organizations/${facility}`, { token: owner.token })
      assert.equal(org.body.subscription, created.body.id)
      const again = await http(url, 'POST', '/subscriptions', {
        token: owner.token,
        body: { facility, package: subs.packages.free.id }
      })
      assert.equal(again.status, 409)
    })

    it('lets only one of ten simultaneous subscriptions for one facility through, answering the others 409', async () => {
      const owner = await signUp(url, {
        organization: { name: 'Racing', type: 'facility', types: ['clinic'] }
      })
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          http(url, 'POST', '/subscriptions', {
            token: owner.token,
            body: { facility: owner.organization.id, package: subs.packages.free.id }
          })
        )
      )
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(9).fill(409)])
      const list = await http(url, 'GET', `/subscriptions?facility=${owner.organization.id}`, {
        token: owner.token
      })
      assert.equal(list.body.total, 1)
    })

    it('a canceled subscription cannot be reactivated (409), and a new one can be created', async () => {
      const owner = await signUpWith(url, subs.packages.free.id)
      const id = owner.subscription.id
      const canceled = await http(url, 'PATCH', `/subscriptions/${id}`, {
        token: owner.token,
        body: { status: 'canceled', reason: 'moving to paper' }
      })
      assert.equal(canceled.status, 200, JSON.stringify(canceled.body))
      assert.equal(canceled.body.status, 'canceled')
      assert.equal(canceled.body.canceledBy, owner.account.id)
      assert.deepEqual(canceled.body.statusHistory.at(-1), {
        status: 'canceled',
        at: canceled.body.statusHistory.at(-1).at,
        by: owner.account.id,
        reason: 'moving to paper'
      })
      for (const body of [
        { status: 'active' },
        { package: subs.packages['clinic-plus'].id },
        { lis: true }
      ]) {
        assert.equal(
          (await http(url, 'PATCH', `/subscriptions/${id}`, { token: subs.admin, body })).status,
          409
        )
      }
      const fresh = await http(url, 'POST', '/subscriptions', {
        token: owner.token,
        body: { facility: owner.organization.id, package: subs.packages.free.id }
      })
      assert.equal(fresh.status, 201)
      const list = await http(
        url,
        'GET',
        `/subscriptions?facility=${owner.organization.id}&$sort[createdAt]=1`,
        { token: owner.token }
      )
      assert.deepEqual(
        list.body.data.map((s: any) => s.status),
        ['canceled', 'active']
      )
    })
  })

  describe('status changes', () => {
    it('removing the organization cancels its live subscription, recorded with who and why', async () => {
      const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
      const removed = await http(url, 'DELETE', `/organizations/${owner.organization.id}`, {
        token: owner.token
      })
      assert.equal(removed.status, 200, JSON.stringify(removed.body))
      const sub = await readSubscription(url, subs.admin, owner.subscription.id)
      assert.equal(sub.status, 'canceled')
      assert.equal(sub.canceledBy, owner.account.id)
      assert.deepEqual(sub.statusHistory.at(-1), {
        status: 'canceled',
        at: sub.statusHistory.at(-1).at,
        by: owner.account.id,
        reason: 'organization removed'
      })
      assert.equal(sub.checkoutSession ?? null, null)
    })

    it("an application admin changes the status; a superadmin's other status change is a 403", async () => {
      const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
      const id = owner.subscription.id
      const refused = await http(url, 'PATCH', `/subscriptions/${id}`, {
        token: owner.token,
        body: { status: 'active' }
      })
      assert.equal(refused.status, 403)
      const done = await http(url, 'PATCH', `/subscriptions/${id}`, {
        token: subs.admin,
        body: { status: 'active', reason: 'paid by bank transfer' }
      })
      assert.equal(done.status, 200)
      assert.equal(done.body.status, 'active')
      assert.ok(done.body.currentPeriodEnd > Date.now())
      assert.equal(done.body.statusHistory.at(-1).reason, 'paid by bank transfer')
    })

    it('an unknown status is a 400 naming it', async () => {
      const owner = await signUpWith(url, subs.packages.free.id)
      const res = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: subs.admin,
        body: { status: 'zombie' }
      })
      assert.equal(res.status, 400)
      assert.ok(fieldsOf(res.body).includes('status'))
    })
  })

  describe('package changes', () => {
    it('to a free package at once', async () => {
      const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
      const res = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: owner.token,
        body: { package: subs.packages.free.id }
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body.package, subs.packages.free.id)
      assert.equal(res.body.status, 'active')
      assert.equal(res.body.onlineBooking, false)
    })

    it('from free to paid: the change waits in updatesPending with a checkout, and applies when it completes', async () => {
      const owner = await signUpWith(url, subs.packages.free.id)
      const res = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: owner.token,
        body: { package: subs.packages['clinic-plus'].id }
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body.package, subs.packages.free.id)
      assert.deepEqual(res.body.updatesPending, { package: subs.packages['clinic-plus'].id })
      assert.ok(res.body.checkoutSession.url)
      await followCheckout(res.body.checkoutSession.url)
      const after = await readSubscription(url, owner.token, owner.subscription.id)
      assert.equal(after.package, subs.packages['clinic-plus'].id)
      assert.deepEqual(after.updatesPending, {})
      assert.equal(after.onlineBooking, true)
      assert.equal(after.price, 4900)
    })

    it('from paid active to another paid package at once, with the proration recorded and no checkout', async () => {
      const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
      await followCheckout(owner.subscription.checkoutSession.url)
      const res = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: owner.token,
        body: { package: subs.packages['clinic-pro'].id }
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body.package, subs.packages['clinic-pro'].id)
      assert.equal(res.body.checkoutSession, null)
      assert.equal(res.body.prorations.length, 1)
      assert.equal(res.body.prorations[0].from, subs.packages['clinic-plus'].id)
      assert.ok(
        res.body.prorations[0].amount > 4900 && res.body.prorations[0].amount <= 5000,
        String(res.body.prorations[0].amount)
      )
      assert.equal(res.body.lis, true)
    })

    it('an unknown or inactive package is a 400; one that does not suit the facility is a 400 saying why', async () => {
      const owner = await signUpWith(url, subs.packages.free.id)
      const id = owner.subscription.id
      const unknown = await http(url, 'PATCH', `/subscriptions/${id}`, {
        token: owner.token,
        body: { package: 'nope' }
      })
      assert.equal(unknown.status, 400)
      assert.deepEqual(fieldsOf(unknown.body), ['package'])
      const unsuited = await http(url, 'PATCH', `/subscriptions/${id}`, {
        token: owner.token,
        body: { package: subs.packages.diagnostics.id }
      })
      assert.equal(unsuited.status, 400)
      assert.match(unsuited.body.errors[0].message, /suits diagnostic-center/)
      const inactive = await http(url, 'POST', '/subscription/packages', {
        token: subs.admin,
        body: { name: 'Old', type: 'facility', price: 100, currency: 'USD', active: false }
      })
      const refused = await http(url, 'PATCH', `/subscriptions/${id}`, {
        token: owner.token,
        body: { package: inactive.body.id }
      })
      assert.equal(refused.status, 400)
      assert.match(refused.body.errors[0].message, /not active/)
    })
  })

  describe('feature toggles', () => {
    it('lis: true stays off, waits in updatesPending with a checkout, and is applied when the checkout completes', async () => {
      const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
      await followCheckout(owner.subscription.checkoutSession.url)
      const res = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: owner.token,
        body: { lis: true }
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body.lis, false)
      assert.deepEqual(res.body.updatesPending, { lis: true })
      const page = await (await fetch(res.body.checkoutSession.url)).text()
      assert.match(page, /2000 USD/)
      await followCheckout(res.body.checkoutSession.url)
      const after = await readSubscription(url, owner.token, owner.subscription.id)
      assert.equal(after.lis, true)
      assert.deepEqual(after.updatesPending, {})
      assert.equal(after.status, 'active')
      const off = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: owner.token,
        body: { lis: false }
      })
      assert.equal(off.status, 200)
      assert.equal(off.body.lis, false)
      assert.equal(off.body.checkoutSession, null)
    })

    it('a feature the package does not let a subscriber toggle is a 400 naming it', async () => {
      const owner = await signUpWith(url, subs.packages.free.id)
      const res = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: owner.token,
        body: { lis: true }
      })
      assert.equal(res.status, 400)
      assert.deepEqual(fieldsOf(res.body), ['lis'])
      const unknown = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: owner.token,
        body: { teleportation: true }
      })
      assert.equal(unknown.status, 400)
      assert.deepEqual(fieldsOf(unknown.body), ['teleportation'])
    })

    it('mixing kinds of change in one PATCH is a 400', async () => {
      const owner = await signUpWith(url, subs.packages.free.id)
      const res = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: owner.token,
        body: { package: subs.packages.free.id, lis: true }
      })
      assert.equal(res.status, 400)
    })
  })
})
