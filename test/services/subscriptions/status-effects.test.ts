// What a facility's subscription status does to the facility's data, over HTTP: pending blocks writes until the
// checkout is done; past_due, unpaid and paused make the data read-only (402 naming the status, with the way to
// pay); a feature that is off refuses its service (402 naming it); trialing and active work; a facility whose
// subscription ended falls back to the default package.
import assert from 'node:assert/strict'
import { http, signUp } from '../../helpers/app'
import { addMember } from '../../helpers/billing'
import { followCheckout, signUpWith, startSubsServer, type SubsServer } from '../../helpers/subscriptions'

describe('subscription status effects on facility data', () => {
  let subs: SubsServer
  let url: string
  before(async () => {
    subs = await startSubsServer()
    url = subs.server.url
  })
  after(() => subs.server.close())

  const record = (facility: string, patient: string, type = 'allergy') =>
    type === 'allergy'
      ? {
          type,
          facility,
          patient,
          name: 'Penicillin',
          permissions: [{ organization: facility, write: true }]
        }
      : { type, facility, patient, subtype: 'order', permissions: [{ organization: facility, write: true }] }
  const setStatus = async (id: string, status: string) => {
    const res = await http(url, 'PATCH', `/subscriptions/${id}`, { token: subs.admin, body: { status } })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body
  }

  it('pending: reads, account, organization and subscription management work; facility writes are a 402 until active', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    const facility = owner.organization.id
    const refused = await http(url, 'POST', '/medical-records', {
      token: owner.token,
      body: record(facility, owner.account.id)
    })
    assert.equal(refused.status, 402, JSON.stringify(refused.body))
    assert.equal(refused.body.data.status, 'pending')
    assert.equal(refused.body.data.checkoutSession.url, owner.subscription.checkoutSession.url)
    for (const [path, body] of [
      ['/billing-invoices', { facility, subject: owner.account.id, subjectType: 'patient', type: 'walk-in' }],
      ['/medical-encounters', { facility, patient: owner.account.id }],
      ['/inventory-stockrooms', { facility, name: 'Main' }],
      [
        '/request/orders',
        {
          owner: { organization: facility },
          requestedForType: 'patient',
          requestedFor: owner.account.id,
          items: [{ name: 'Gauze' }]
        }
      ]
    ] as const) {
      assert.equal((await http(url, 'POST', path, { token: owner.token, body })).status, 402, path)
    }
    assert.equal(
      (await http(url, 'GET', `/medical-records?facility=${facility}`, { token: owner.token })).status,
      200
    )
    assert.equal(
      (
        await http(url, 'PATCH', `/organizations/${facility}`, {
          token: owner.token,
          body: { name: 'Renamed' }
        })
      ).status,
      200
    )
    const colleague = await signUp(url)
    await addMember(url, owner, facility, colleague)
    assert.equal(
      (
        await http(url, 'PATCH', `/accounts/${owner.account.id}`, {
          token: owner.token,
          body: { firstName: 'Ana' }
        })
      ).status,
      200
    )
    await followCheckout(owner.subscription.checkoutSession.url)
    assert.equal(
      (
        await http(url, 'POST', '/medical-records', {
          token: owner.token,
          body: record(facility, owner.account.id)
        })
      ).status,
      200
    )
  })

  for (const status of ['past_due', 'unpaid', 'paused']) {
    it(`${status}: the facility's data is read-only — a medical record and a billing write are 402s naming the status; reads work`, async () => {
      const owner = await signUpWith(url, subs.packages.free.id)
      const facility = owner.organization.id
      const created = await http(url, 'POST', '/medical-records', {
        token: owner.token,
        body: record(facility, owner.account.id)
      })
      assert.equal(created.status, 200)
      const invoice = await http(url, 'POST', '/billing-invoices', {
        token: owner.token,
        body: { facility, subject: owner.account.id, subjectType: 'patient', type: 'walk-in' }
      })
      assert.equal(invoice.status, 201, JSON.stringify(invoice.body))
      await setStatus(owner.subscription.id, status)

      const patch = await http(url, 'PATCH', `/medical-records/${created.body.id}`, {
        token: owner.token,
        body: { description: 'changed' }
      })
      assert.equal(patch.status, 402, JSON.stringify(patch.body))
      assert.equal(patch.body.data.status, status)
      assert.match(patch.body.message, new RegExp(status))
      assert.equal(patch.body.data.subscription, owner.subscription.id)
      const item = await http(url, 'POST', '/billing-items', {
        token: owner.token,
        body: { invoice: invoice.body.id, type: 'custom', name: 'Line', price: 10 }
      })
      assert.equal(item.status, 402)
      assert.equal(
        (
          await http(url, 'POST', '/billing-invoices', {
            token: owner.token,
            body: { facility, subject: owner.account.id, subjectType: 'patient', type: 'walk-in' }
          })
        ).status,
        402
      )
      assert.equal(
        (await http(url, 'DELETE', `/billing-invoices/${invoice.body.id}`, { token: owner.token })).status,
        402
      )

      assert.equal(
        (await http(url, 'GET', `/medical-records/${created.body.id}`, { token: owner.token })).status,
        200
      )
      assert.equal(
        (await http(url, 'GET', `/billing-invoices/${invoice.body.id}`, { token: owner.token })).status,
        200
      )
      // The way out stays open: the subscription itself and the billing customer (cards).
      assert.equal(
        (
          await http(url, 'POST', '/billing/customers', {
            token: owner.token,
            body: { owner: { organization: facility }, processorToken: 'tok_visa' }
          })
        ).status,
        201
      )
      await setStatus(owner.subscription.id, 'active')
      assert.equal(
        (
          await http(url, 'PATCH', `/medical-records/${created.body.id}`, {
            token: owner.token,
            body: { description: 'changed' }
          })
        ).status,
        200
      )
    })
  }

  it('a feature that is off refuses its service with a 402 naming the feature; other records still work', async () => {
    const pkg = await http(url, 'POST', '/subscription/packages', {
      token: subs.admin,
      body: {
        name: 'No dental',
        type: 'facility',
        types: ['clinic'],
        price: 0,
        currency: 'USD',
        products: {
          dental: { type: 'feature', base: false, toggleable: true, price: 500 },
          inventory: { type: 'feature', base: false, toggleable: false, price: 0 }
        }
      }
    })
    assert.equal(pkg.status, 201)
    const owner = await signUpWith(url, pkg.body.id)
    const facility = owner.organization.id
    const dental = await http(url, 'POST', '/medical-records', {
      token: owner.token,
      body: record(facility, owner.account.id, 'dental-note')
    })
    assert.equal(dental.status, 402, JSON.stringify(dental.body))
    assert.equal(dental.body.data.feature, 'dental')
    assert.match(dental.body.message, /'dental'/)
    const stockroom = await http(url, 'POST', '/inventory-stockrooms', {
      token: owner.token,
      body: { facility, name: 'Main' }
    })
    assert.equal(stockroom.status, 402)
    assert.equal(stockroom.body.data.feature, 'inventory')
    assert.equal(
      (await http(url, 'GET', `/inventory-stockrooms?facility=${facility}`, { token: owner.token })).status,
      402
    )
    assert.equal(
      (
        await http(url, 'POST', '/medical-records', {
          token: owner.token,
          body: record(facility, owner.account.id)
        })
      ).status,
      200
    )
  })

  it('every change of the subscription is seen by the very next create', async () => {
    const pkg = await http(url, 'POST', '/subscription/packages', {
      token: subs.admin,
      body: {
        name: 'Dental optional',
        type: 'facility',
        types: ['clinic'],
        price: 0,
        currency: 'USD',
        products: { dental: { type: 'feature', base: true, toggleable: true, price: 0 } }
      }
    })
    assert.equal(pkg.status, 201, JSON.stringify(pkg.body))
    const owner = await signUpWith(url, pkg.body.id)
    const facility = owner.organization.id
    const create = async (type = 'allergy') =>
      (
        await http(url, 'POST', '/medical-records', {
          token: owner.token,
          body: record(facility, owner.account.id, type)
        })
      ).status
    const toggle = async (dental: boolean) => {
      const res = await http(url, 'PATCH', `/subscriptions/${owner.subscription.id}`, {
        token: owner.token,
        body: { dental }
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body.dental, dental)
    }

    assert.equal(await create('dental-note'), 200)
    await toggle(false)
    assert.equal(await create('dental-note'), 402)
    assert.equal(await create(), 200)
    await toggle(true)
    assert.equal(await create('dental-note'), 200)
    for (const status of ['past_due', 'active', 'paused', 'trialing']) {
      await setStatus(owner.subscription.id, status)
      assert.equal(await create(), status === 'active' || status === 'trialing' ? 200 : 402, status)
    }
  })

  it('trialing works like active', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-pro'].id)
    assert.equal(owner.subscription.status, 'trialing')
    assert.equal(
      (
        await http(url, 'POST', '/medical-records', {
          token: owner.token,
          body: record(owner.organization.id, owner.account.id)
        })
      ).status,
      200
    )
  })

  it('incomplete: writes work with every feature at the package base value', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    await followCheckout(owner.subscription.checkoutSession.url, 'fail')
    assert.equal(
      (
        await http(url, 'POST', '/medical-records', {
          token: owner.token,
          body: record(owner.organization.id, owner.account.id, 'dental-note')
        })
      ).status,
      200
    )
  })

  it('a canceled subscription leaves the facility on the default package, writable', async () => {
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    await setStatus(owner.subscription.id, 'canceled')
    assert.equal(
      (
        await http(url, 'POST', '/medical-records', {
          token: owner.token,
          body: record(owner.organization.id, owner.account.id)
        })
      ).status,
      200
    )
  })
})
