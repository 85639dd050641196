// Recovery of leftovers that only a crash can produce, set up directly in the store (as a dead process would
// have left them) and resolved by the same pass the server runs at startup.
import assert from 'node:assert/strict'
import { restClient, startServer, type TestServer } from '../helpers/app'
import { invoiceWithItems, pay, setupFacility, type FacilityFixture } from '../helpers/billing'
import { recoverBilling } from '../../src/billing/recovery'
import { depsSlot } from '../../src/deps'

describe('billing recovery pass', () => {
  let server: TestServer
  let facility: FacilityFixture
  const store = (name: string) => server.app.service(name as any) as any
  const everything = () => ({
    operationsBefore: Date.now() + 1,
    paymentsBefore: Date.now() + 1,
    sweepSince: 0
  })

  before(async () => {
    server = await startServer()
    facility = await setupFacility(server.url)
  })
  after(() => server.close())

  it('releases a reservation whose payment no longer exists', async () => {
    const { invoice, items } = await invoiceWithItems(server.url, facility, [100])
    await pay(server.url, facility, items[0].id, 10)
    await store('billing-items')._patch(items[0].id, {
      $inc: { reserved: 2500 },
      $push: { pending: { key: 'vanished-payment', amount: 2500, at: 1 } }
    })
    const report = await recoverBilling(depsSlot.require(server.app), everything())
    assert.equal(report.reservationsReleased, 1)
    const item = (await restClient(server.url, facility.member.token).get(`/billing-items/${items[0].id}`))
      .body
    assert.deepEqual([item.paid, item.balance], [10, 90])
    assert.deepEqual((await store('billing-items')._get(items[0].id)).pending, [])
    assert.equal(
      (await restClient(server.url, facility.member.token).get(`/billing-invoices/${invoice.id}`)).body.paid,
      10
    )
  })

  it('drops a pending payment whose item is gone and leaves recent operations of other processes alone', async () => {
    const { items } = await invoiceWithItems(server.url, facility, [100])
    const orphan = await store('billing-payments')._create({
      facility: facility.id,
      invoice: 'gone',
      item: 'gone',
      amount: 5,
      status: 'pending',
      createdAt: 1
    })
    const recent = await store('billing-payments')._create({
      facility: facility.id,
      invoice: items[0].invoice,
      item: items[0].id,
      amount: 5,
      status: 'pending',
      createdAt: Date.now()
    })
    const report = await recoverBilling(depsSlot.require(server.app), {
      operationsBefore: Date.now() - 60_000,
      paymentsBefore: Date.now() - 60_000,
      sweepSince: null
    })
    assert.equal(report.paymentsDropped, 1)
    await assert.rejects(store('billing-payments')._get(orphan.id), { code: 404 })
    assert.equal((await store('billing-payments')._get(recent.id)).status, 'pending')
    assert.equal(
      (await restClient(server.url, facility.biller.token).get(`/billing-payments/${recent.id}`)).status,
      404
    )
    await recoverBilling(depsSlot.require(server.app), everything())
    await assert.rejects(store('billing-payments')._get(recent.id), { code: 404 })
  })

  it('recomputes totals that a crash left stale, and finds nothing to do in a consistent store', async () => {
    const { invoice } = await invoiceWithItems(server.url, facility, [20, 30])
    await store('billing-invoices')._patch(invoice.id, { total: 0, balance: 0, itemCount: 0 })
    await recoverBilling(depsSlot.require(server.app), everything())
    const fresh = (await restClient(server.url, facility.member.token).get(`/billing-invoices/${invoice.id}`))
      .body
    assert.deepEqual([fresh.total, fresh.balance, fresh.itemCount], [50, 50, 2])
    const again = await recoverBilling(depsSlot.require(server.app), everything())
    assert.deepEqual(
      Object.entries(again).filter(([key, count]) => key !== 'invoicesRefreshed' && count > 0),
      []
    )
  })
})
