import assert from 'node:assert/strict'
import { restClient, type TestServer } from '../../helpers/app'
import {
  fieldsOf,
  invoiceWithItems,
  pay,
  type FacilityFixture,
  startFacilityServer
} from '../../helpers/billing'

describe('billing-items', () => {
  let server: TestServer
  let facility: FacilityFixture
  let consult: any
  let euroService: any
  let foreignService: any

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    const biller = restClient(server.url, facility.biller.token)
    consult = (
      await biller.post('/services', {
        facility: facility.id,
        name: 'Consultation',
        type: 'consultation',
        price: 50
      })
    ).body
    euroService = (
      await biller.post('/services', {
        facility: facility.id,
        name: 'Visa exam',
        type: 'procedure',
        price: 70,
        currency: 'EUR'
      })
    ).body
    foreignService = (
      await restClient(server.url, facility.stranger.token).post('/services', {
        facility: facility.strangerFacility,
        name: 'Elsewhere',
        type: 'other',
        price: 1
      })
    ).body
  })
  after(() => server.close())

  const draftInvoice = async () => (await invoiceWithItems(server.url, facility, [])).invoice
  const member = () => restClient(server.url, facility.member.token)
  const biller = () => restClient(server.url, facility.biller.token)

  describe('create', () => {
    it('adds an item to a draft invoice: quantity defaults to 1, amount is price × quantity', async () => {
      const invoice = await draftInvoice()
      const res = await member().post('/billing-items', {
        invoice: invoice.id,
        type: 'custom',
        name: 'Syringe',
        price: 2.5
      })
      assert.equal(res.status, 201)
      assert.equal(res.body.quantity, 1)
      assert.equal(res.body.amount, 2.5)
      assert.equal(res.body.paid, 0)
      assert.equal(res.body.balance, 2.5)
      assert.equal(res.body.status, 'draft')
      assert.equal(res.body.facility, facility.id)
      assert.equal(res.body.currency, 'USD')
      for (const internal of ['amountMinor', 'reserved', 'pending', 'deleting'])
        assert.equal(internal in res.body, false, internal)
      const three = await member().post('/billing-items', {
        invoice: invoice.id,
        type: 'custom',
        price: 0.35,
        quantity: 3
      })
      assert.equal(three.body.amount, 1.05)
    })

    it('takes the price and name of the referenced service unless a price is sent', async () => {
      const invoice = await draftInvoice()
      const fromService = await member().post('/billing-items', {
        invoice: invoice.id,
        type: 'service',
        ref: consult.id,
        quantity: 2
      })
      assert.equal(fromService.status, 201)
      assert.equal(fromService.body.price, 50)
      assert.equal(fromService.body.name, 'Consultation')
      assert.equal(fromService.body.amount, 100)
      const discounted = await member().post('/billing-items', {
        invoice: invoice.id,
        type: 'service',
        ref: consult.id,
        price: 40
      })
      assert.equal(discounted.body.price, 40)
      assert.equal(discounted.body.amount, 40)
    })

    it('refuses service items without a service of this facility (in the invoice currency) and other items without a price (400)', async () => {
      const invoice = await draftInvoice()
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ type: 'service' }, 'ref', /is required/],
        [{ type: 'service', ref: 'no-such-service' }, 'ref', /not a service of this facility/],
        [{ type: 'service', ref: foreignService.id }, 'ref', /not a service of this facility/],
        [{ type: 'service', ref: euroService.id }, 'ref', /priced in EUR/],
        [{ type: 'custom' }, 'price', /is required/]
      ]
      for (const [extra, field, message] of cases) {
        const res = await member().post('/billing-items', { invoice: invoice.id, ...extra })
        assert.equal(res.status, 400, JSON.stringify(extra))
        assert.deepEqual(fieldsOf(res.body), [field])
        assert.match(res.body.message, message)
      }
    })

    it('refuses bad prices, quantities, types and unknown fields with 400s naming them', async () => {
      const invoice = await draftInvoice()
      const res = await member().post('/billing-items', {
        invoice: invoice.id,
        type: 'custom',
        price: -1,
        quantity: 0,
        amount: 5
      })
      assert.equal(res.status, 400)
      assert.deepEqual(fieldsOf(res.body).sort(), ['amount', 'price', 'quantity'])
      const decimals = await member().post('/billing-items', {
        invoice: invoice.id,
        type: 'gadget',
        price: 1.005
      })
      assert.equal(decimals.status, 400)
      assert.deepEqual(fieldsOf(decimals.body).sort(), ['price', 'type'])
      const huge = await member().post('/billing-items', {
        invoice: invoice.id,
        type: 'custom',
        price: 1e9,
        quantity: 1e6
      })
      assert.equal(huge.status, 400)
      assert.deepEqual(fieldsOf(huge.body), ['quantity'])
    })

    it('refuses anonymous callers (401) and invoices the caller cannot see (404)', async () => {
      const invoice = await draftInvoice()
      assert.equal(
        (
          await restClient(server.url).post('/billing-items', {
            invoice: invoice.id,
            type: 'custom',
            price: 1
          })
        ).status,
        401
      )
      const stranger = await restClient(server.url, facility.stranger.token).post('/billing-items', {
        invoice: invoice.id,
        type: 'custom',
        price: 1
      })
      assert.equal(stranger.status, 404)
      assert.match(stranger.body.message, /No billing invoice found/)
      assert.equal(
        (await member().post('/billing-items', { invoice: 'missing', type: 'custom', price: 1 })).status,
        404
      )
    })
  })

  describe('rule 1: items only on draft invoices; finalized items are frozen', () => {
    it('refuses an item on a finalized invoice with a 409 that says so', async () => {
      const { invoice } = await invoiceWithItems(server.url, facility, [10])
      assert.equal((await biller().patch(`/billing-invoices/${invoice.id}`, { finalize: true })).status, 200)
      const res = await member().post('/billing-items', { invoice: invoice.id, type: 'custom', price: 5 })
      assert.equal(res.status, 409)
      assert.match(res.body.message, /is finalized: items can only be added to a draft invoice/)
      assert.equal(res.body.data.invoice, invoice.id)
      assert.equal((await member().get(`/billing-invoices/${invoice.id}`)).body.itemCount, 1)
    })

    it('refuses to change or remove a finalized item (409)', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [10])
      assert.equal((await biller().patch(`/billing-items/${items[0].id}`, { finalize: true })).status, 200)
      const patch = await member().patch(`/billing-items/${items[0].id}`, { price: 1 })
      assert.equal(patch.status, 409)
      assert.match(patch.body.message, /finalized and cannot be changed/)
      const remove = await biller().delete(`/billing-items/${items[0].id}`)
      assert.equal(remove.status, 409)
      assert.match(remove.body.message, /finalized and cannot be removed/)
      assert.equal((await member().get(`/billing-items/${items[0].id}`)).body.price, 10)
    })
  })

  describe('rule 2: an item can be finalized on its own', () => {
    it('finalizes one item and leaves the invoice and the other items drafts', async () => {
      const { invoice, items } = await invoiceWithItems(server.url, facility, [10, 20])
      const res = await biller().patch(`/billing-items/${items[0].id}`, { finalize: true })
      assert.equal(res.status, 200)
      assert.equal(res.body.status, 'finalized')
      assert.equal(res.body.finalizedBy, facility.biller.account.id)
      assert.equal(typeof res.body.finalizedAt, 'number')
      assert.equal((await member().get(`/billing-items/${items[1].id}`)).body.status, 'draft')
      assert.equal((await member().get(`/billing-invoices/${invoice.id}`)).body.status, 'draft')
    })

    it('refuses members without the billing privilege (403), strangers (404) and finalize: false (400)', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [10])
      assert.equal((await member().patch(`/billing-items/${items[0].id}`, { finalize: true })).status, 403)
      assert.equal(
        (
          await restClient(server.url, facility.stranger.token).patch(`/billing-items/${items[0].id}`, {
            finalize: true
          })
        ).status,
        404
      )
      const bad = await biller().patch(`/billing-items/${items[0].id}`, { finalize: false })
      assert.equal(bad.status, 400)
      assert.deepEqual(fieldsOf(bad.body), ['finalize'])
      assert.equal((await member().get(`/billing-items/${items[0].id}`)).body.status, 'draft')
    })
  })

  describe('change', () => {
    it('lets members change a draft item and reprices it from a newly referenced service', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [10])
      const res = await member().patch(`/billing-items/${items[0].id}`, {
        quantity: 4,
        description: 'Per tablet'
      })
      assert.equal(res.status, 200)
      assert.equal(res.body.amount, 40)
      const service = await member().patch(`/billing-items/${items[0].id}`, {
        type: 'service',
        ref: consult.id
      })
      assert.equal(service.status, 200)
      assert.equal(service.body.price, 50)
      assert.equal(service.body.name, 'Consultation')
      assert.equal(service.body.amount, 200)
      assert.equal((await member().patch(`/billing-items/${items[0].id}`, { quantity: -2 })).status, 400)
      assert.equal(
        (
          await restClient(server.url, facility.stranger.token).patch(`/billing-items/${items[0].id}`, {
            quantity: 1
          })
        ).status,
        404
      )
    })

    it('refuses a price × quantity below what is already paid (409)', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [10])
      await member().patch(`/billing-items/${items[0].id}`, { quantity: 3 })
      await pay(server.url, facility, items[0].id, 25)
      const res = await member().patch(`/billing-items/${items[0].id}`, { quantity: 2 })
      assert.equal(res.status, 409)
      assert.match(res.body.message, /cannot be less than what is already paid \(25\)/)
      assert.equal((await member().get(`/billing-items/${items[0].id}`)).body.amount, 30)
      assert.equal(
        (await member().patch(`/billing-items/${items[0].id}`, { price: 12.5, quantity: 2 })).status,
        200
      )
    })
  })

  describe('remove: a removed item takes its payments with it', () => {
    it('deletes a draft item with its payments and updates the invoice totals', async () => {
      const { invoice, items } = await invoiceWithItems(server.url, facility, [10, 20])
      await pay(server.url, facility, items[0].id, 4)
      await pay(server.url, facility, items[0].id, 6)
      await pay(server.url, facility, items[1].id, 1)
      const res = await biller().delete(`/billing-items/${items[0].id}`)
      assert.equal(res.status, 200)
      assert.equal(res.body.id, items[0].id)
      assert.equal((await member().get(`/billing-items/${items[0].id}`)).status, 404)
      assert.equal((await member().get(`/billing-payments?item=${items[0].id}`)).body.total, 0)
      assert.equal((await member().get(`/billing-payments?item=${items[1].id}`)).body.total, 1)
      const fresh = (await member().get(`/billing-invoices/${invoice.id}`)).body
      assert.deepEqual([fresh.total, fresh.paid, fresh.balance, fresh.itemCount], [20, 1, 19, 1])
    })

    it('refuses members without the billing privilege (403), strangers (404) and anonymous callers (401)', async () => {
      const { items } = await invoiceWithItems(server.url, facility, [10])
      assert.equal((await member().delete(`/billing-items/${items[0].id}`)).status, 403)
      assert.equal(
        (await restClient(server.url, facility.stranger.token).delete(`/billing-items/${items[0].id}`))
          .status,
        404
      )
      assert.equal((await restClient(server.url).delete(`/billing-items/${items[0].id}`)).status, 401)
      assert.equal((await member().get(`/billing-items/${items[0].id}`)).status, 200)
    })
  })
})
