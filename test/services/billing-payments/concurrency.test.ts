// Rule 4 under concurrency: many payments at once against one item never add up to more than the item's
// price × quantity, and every refused one is a 409 naming the remaining balance.
import assert from 'node:assert/strict'
import { http, restClient, type TestServer } from '../../helpers/app'
import { invoiceWithItems, type FacilityFixture, startFacilityServer } from '../../helpers/billing'

describe('billing-payments under concurrency', () => {
  let server: TestServer
  let facility: FacilityFixture

  before(async () => ({ server, facility } = await startFacilityServer()))
  after(() => server.close())

  const payAll = (item: string, amounts: number[]) =>
    Promise.all(
      amounts.map((amount) =>
        http(server.url, 'POST', '/billing-payments', {
          token: facility.biller.token,
          body: { item, type: 'payment', paymentMethod: 'cash', amount }
        }).then((res) => ({ amount, res }))
      )
    )

  const storedPayments = async (item: string) =>
    (await (server.app.service('billing-payments' as any) as any)._find({
      query: { item },
      paginate: false
    })) as any[]
  const cents = (value: number) => Math.round(value * 100)

  it('lets exactly as many of 50 simultaneous payments through as fit, and answers every other one 409 with the remaining balance', async () => {
    const { invoice, items } = await invoiceWithItems(server.url, facility, [100])
    const results = await payAll(items[0].id, Array(50).fill(7))
    const accepted = results.filter((r) => r.res.status === 201)
    const refused = results.filter((r) => r.res.status !== 201)
    assert.equal(accepted.length, 14)
    assert.equal(refused.length, 36)
    for (const { res } of refused) {
      assert.equal(res.status, 409)
      assert.match(res.body.message, /the remaining balance is 2$/)
      assert.equal(res.body.data.remainingBalance, 2)
    }
    const stored = await storedPayments(items[0].id)
    assert.equal(stored.length, 14)
    assert.ok(stored.every((p) => p.status === 'draft'))
    assert.equal(
      stored.reduce((sum, p) => sum + p.amount, 0),
      98
    )
    const item = (await restClient(server.url, facility.member.token).get(`/billing-items/${items[0].id}`))
      .body
    assert.deepEqual([item.paid, item.balance], [98, 2])
    const fresh = (await restClient(server.url, facility.member.token).get(`/billing-invoices/${invoice.id}`))
      .body
    assert.deepEqual([fresh.total, fresh.paid, fresh.balance], [100, 98, 2])
  })

  it('keeps the sum at or below the total for 50 simultaneous payments of mixed amounts', async () => {
    const { invoice, items } = await invoiceWithItems(server.url, facility, [250])
    const amounts = Array.from({ length: 50 }, (_, i) => ((i * 37) % 29) + 1 + ((i * 13) % 100) / 100)
    const results = await payAll(items[0].id, amounts)
    let acceptedCents = 0
    for (const { amount, res } of results) {
      if (res.status === 201) {
        acceptedCents += cents(amount)
        continue
      }
      assert.equal(res.status, 409)
      assert.ok(
        cents(res.body.data.remainingBalance) < cents(amount),
        `refused ${amount} although ${res.body.data.remainingBalance} remained`
      )
      assert.match(res.body.message, new RegExp(`remaining balance is ${res.body.data.remainingBalance}$`))
    }
    assert.ok(acceptedCents <= 25000)
    const stored = await storedPayments(items[0].id)
    assert.equal(
      stored.reduce((sum, p) => sum + cents(p.amount), 0),
      acceptedCents
    )
    const fresh = (await restClient(server.url, facility.member.token).get(`/billing-invoices/${invoice.id}`))
      .body
    assert.equal(cents(fresh.paid), acceptedCents)
    assert.equal(cents(fresh.balance), 25000 - acceptedCents)
  })

  it('never lets a price cut race payments below what is paid', async () => {
    const { items } = await invoiceWithItems(server.url, facility, [10])
    const member = restClient(server.url, facility.member.token)
    assert.equal((await member.patch(`/billing-items/${items[0].id}`, { quantity: 10 })).status, 200)
    const [payments, cuts] = await Promise.all([
      payAll(items[0].id, Array(20).fill(5)),
      Promise.all(
        [6, 5, 4, 7, 3].map((quantity) => member.patch(`/billing-items/${items[0].id}`, { quantity }))
      )
    ])
    for (const cut of cuts) assert.ok([200, 409].includes(cut.status), JSON.stringify(cut.body))
    for (const { res } of payments) assert.ok([201, 409].includes(res.status), JSON.stringify(res.body))
    const item = (await member.get(`/billing-items/${items[0].id}`)).body
    const paid = (await storedPayments(items[0].id)).reduce((sum, p) => sum + p.amount, 0)
    assert.equal(item.paid, paid)
    assert.ok(paid <= item.amount, `paid ${paid} > amount ${item.amount}`)
  })

  // Ten rounds: an item inserted just before the finalize and then taken back (409) may already have been counted by
  // another item's totals refresh; the invoice's itemCount must still end up counting the accepted items only.
  it('leaves no draft item on an invoice finalized while items were being added, and counts only the accepted ones', async () => {
    for (let round = 0; round < 10; round++) await finalizeAmidAdditions()
  })

  const finalizeAmidAdditions = async () => {
    const created = await restClient(server.url, facility.member.token).post('/medical-encounters', {
      facility: facility.id,
      patient: facility.member.account.id,
      invoice: true
    })
    const invoiceId = created.body.invoice
    const add = (price: number) =>
      http(server.url, 'POST', '/billing-items', {
        token: facility.member.token,
        body: { invoice: invoiceId, type: 'custom', price }
      })
    // A first wave of additions; the finalize goes out as soon as one of them is answered, amid a second wave.
    const first = Array.from({ length: 20 }, (_, i) => add(i + 1))
    await Promise.race(first)
    const second = Array.from({ length: 20 }, (_, i) => add(i + 21))
    const finalized = await http(server.url, 'PATCH', `/medical-encounters/${created.body.id}`, {
      token: facility.biller.token,
      body: { finalize: true }
    })
    const third = Array.from({ length: 10 }, (_, i) => add(i + 41))
    const results = await Promise.all([...first, ...second, ...third])
    assert.equal(finalized.status, 200)
    const accepted = results.filter((r) => r.status === 201).map((r) => r.body.id)
    assert.ok(accepted.length > 0)
    assert.ok(accepted.length < results.length)
    for (const r of results)
      assert.ok(
        r.status === 201 || (r.status === 409 && /finalized/.test(r.body.message)),
        JSON.stringify(r.body)
      )
    const stored = (await (server.app.service('billing-items' as any) as any)._find({
      query: { invoice: invoiceId },
      paginate: false
    })) as any[]
    assert.deepEqual(stored.map((i) => i.id).sort(), accepted.sort())
    assert.ok(stored.every((i) => i.status === 'finalized'))
    const invoice = (
      await restClient(server.url, facility.member.token).get(`/billing-invoices/${invoiceId}`)
    ).body
    assert.equal(invoice.itemCount, accepted.length)
    assert.equal(
      invoice.total,
      accepted.reduce((sum, id) => sum + results.find((r) => r.body.id === id)!.body.amount, 0)
    )
  }
})
