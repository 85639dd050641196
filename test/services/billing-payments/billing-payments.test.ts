import assert from 'node:assert/strict'
import { restClient, type TestServer } from '../../helpers/app'
import {
  fieldsOf,
  invoiceWithItems,
  pay,
  type FacilityFixture,
  startFacilityServer
} from '../../helpers/billing'

describe('billing-payments', () => {
  let server: TestServer
  let facility: FacilityFixture

  before(async () => ({ server, facility } = await startFacilityServer()))
  after(() => server.close())

  const biller = () => restClient(server.url, facility.biller.token)
  const member = () => restClient(server.url, facility.member.token)
  const body = (item: string, extra: Record<string, unknown> = {}) => ({
    item,
    type: 'payment',
    paymentMethod: 'cash',
    amount: 10,
    ...extra
  })

  describe('create', () => {
    it('records a draft payment against an item, denormalizing facility, invoice and currency', async () => {
      const { invoice, items } = await invoiceWithItems(server.url, facility, [50])
      const res = await biller().post(
        '/billing-payments',
        body(items[0].id, { paymentMethod: 'card', reference: 'TX-1', amount: 12.34 })
      )
      assert.equal(res.status, 201)
      assert.equal(res.body.status, 'draft')
      assert.equal(res.body.amount, 12.34)
      assert.equal(res.body.facility, facility.id)
      assert.equal(res.body.invoice, invoice.id)
      assert.equal(res.body.currency, 'USD')
      assert.equal(res.body.createdBy, facility.biller.account.id)
      assert.equal(typeof res.body.paidAt, 'number')
      const item = (await member().get(`/billing-items/${items[0].id}`)).body
      assert.deepEqual([item.paid, item.balance], [12.34, 37.66])
    })

    it('lets a superadmin record a payment', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [50])
      assert.equal(
        (await restClient(server.url, facility.owner.token).post('/billing-payments', body(items[0].id)))
          .status,
        201
      )
    })

    it('refuses members without the billing privilege (403), strangers and unknown items (404), anonymous callers (401)', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [50])
      const denied = await member().post('/billing-payments', body(items[0].id))
      assert.equal(denied.status, 403)
      assert.match(denied.body.message, /'billing' privilege/)
      assert.equal(
        (await restClient(server.url, facility.stranger.token).post('/billing-payments', body(items[0].id)))
          .status,
        404
      )
      assert.equal((await biller().post('/billing-payments', body('no-such-item'))).status, 404)
      assert.equal((await restClient(server.url).post('/billing-payments', body(items[0].id))).status, 401)
      assert.equal((await member().get(`/billing-items/${items[0].id}`)).body.paid, 0)
    })

    it('refuses amounts of 0 or less or with too many decimals, unknown methods and types, and missing fields (400)', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [50])
      for (const amount of [0, -5, 0.001, '5']) {
        const res = await biller().post('/billing-payments', body(items[0].id, { amount }))
        assert.equal(res.status, 400, String(amount))
        assert.deepEqual(fieldsOf(res.body), ['amount'])
      }
      const lists = await biller().post(
        '/billing-payments',
        body(items[0].id, { paymentMethod: 'barter', type: 'gift' })
      )
      assert.equal(lists.status, 400)
      assert.deepEqual(fieldsOf(lists.body).sort(), ['paymentMethod', 'type'])
      assert.match(
        lists.body.message,
        /'paymentMethod' must be one of: cash, card, check, bank-transfer, online, hmo, insurance/
      )
      const missing = await biller().post('/billing-payments', {
        item: items[0].id,
        amount: 1,
        status: 'finalized'
      })
      assert.equal(missing.status, 400)
      assert.deepEqual(fieldsOf(missing.body).sort(), ['paymentMethod', 'status', 'type'])
    })
  })

  describe('rule 3: payments after the invoice is finalized', () => {
    it('accepts payments for items of a finalized invoice', async () => {
      const { invoice, items } = await invoiceWithItems(server.url, facility, [40])
      assert.equal((await biller().patch(`/billing-invoices/${invoice.id}`, { finalize: true })).status, 200)
      const res = await biller().post(
        '/billing-payments',
        body(items[0].id, { amount: 40, paymentMethod: 'hmo', type: 'copay' })
      )
      assert.equal(res.status, 201)
      const fresh = (await member().get(`/billing-invoices/${invoice.id}`)).body
      assert.deepEqual([fresh.status, fresh.paid, fresh.balance], ['finalized', 40, 0])
    })
  })

  describe('rule 4: the payments of an item never exceed price × quantity', () => {
    it('accepts several payments up to the total and refuses the one that would cross it with a 409 naming the remaining balance', async () => {
      const { invoice } = await invoiceWithItems(server.url, facility, [])
      const item = (
        await member().post('/billing-items', { invoice: invoice.id, type: 'custom', price: 25, quantity: 4 })
      ).body
      await pay(server.url, facility, item.id, 60)
      await pay(server.url, facility, item.id, 30.5)
      const over = await biller().post('/billing-payments', body(item.id, { amount: 9.51 }))
      assert.equal(over.status, 409)
      assert.match(over.body.message, /remaining balance is 9\.5\b/)
      assert.equal(over.body.data.remainingBalance, 9.5)
      assert.equal(over.body.data.item, item.id)
      await pay(server.url, facility, item.id, 9.5)
      const full = await biller().post('/billing-payments', body(item.id, { amount: 0.01 }))
      assert.equal(full.status, 409)
      assert.equal(full.body.data.remainingBalance, 0)
      const payments = (await member().get(`/billing-payments?item=${item.id}`)).body
      assert.equal(payments.total, 3)
      assert.equal(
        payments.data.reduce((sum: number, p: any) => sum + p.amount, 0),
        100
      )
    })
  })

  describe('read', () => {
    it('shows payments to members of the facility only', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [50])
      const payment = await pay(server.url, facility, items[0].id, 5)
      assert.equal((await member().get(`/billing-payments/${payment.id}`)).status, 200)
      assert.ok(
        (await member().get(`/billing-payments?paymentMethod=cash&amount[$gte]=5`)).body.data.some(
          (p: any) => p.id === payment.id
        )
      )
      assert.equal(
        (await restClient(server.url, facility.stranger.token).get(`/billing-payments/${payment.id}`)).status,
        404
      )
      assert.equal(
        (await restClient(server.url, facility.stranger.token).get('/billing-payments')).body.total,
        0
      )
      assert.equal((await restClient(server.url).get('/billing-payments')).status, 401)
      assert.equal((await member().get('/billing-payments?amount[$where]=1')).status, 400)
    })
  })

  describe('change and finalize', () => {
    it('lets billing staff change a draft payment and finalize it, after which it is frozen', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [50])
      const payment = await pay(server.url, facility, items[0].id, 5)
      const patched = await biller().patch(`/billing-payments/${payment.id}`, {
        reference: 'OR-77',
        paymentMethod: 'check'
      })
      assert.equal(patched.status, 200)
      assert.equal(patched.body.reference, 'OR-77')
      const finalized = await biller().patch(`/billing-payments/${payment.id}`, { finalize: true })
      assert.equal(finalized.status, 200)
      assert.equal(finalized.body.status, 'finalized')
      assert.equal(finalized.body.finalizedBy, facility.biller.account.id)
      const frozen = await biller().patch(`/billing-payments/${payment.id}`, { notes: 'late' })
      assert.equal(frozen.status, 409)
    })

    it('refuses members without the billing privilege (403), strangers (404), amount changes (400) and removal (405)', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [50])
      const payment = await pay(server.url, facility, items[0].id, 5)
      assert.equal((await member().patch(`/billing-payments/${payment.id}`, { notes: 'x' })).status, 403)
      assert.equal(
        (
          await restClient(server.url, facility.stranger.token).patch(`/billing-payments/${payment.id}`, {
            notes: 'x'
          })
        ).status,
        404
      )
      const amount = await biller().patch(`/billing-payments/${payment.id}`, { amount: 50 })
      assert.equal(amount.status, 400)
      assert.deepEqual(fieldsOf(amount.body), ['amount'])
      assert.equal(
        (await biller().patch(`/billing-payments/${payment.id}`, { paymentMethod: 'barter' })).status,
        400
      )
      assert.equal((await biller().delete(`/billing-payments/${payment.id}`)).status, 405)
    })
  })
})
