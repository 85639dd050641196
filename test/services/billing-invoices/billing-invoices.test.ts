import assert from 'node:assert/strict'
import { restClient, type TestServer } from '../../helpers/app'
import {
  fieldsOf,
  invoiceWithItems,
  pay,
  type FacilityFixture,
  startFacilityServer
} from '../../helpers/billing'

describe('billing-invoices', () => {
  let server: TestServer
  let facility: FacilityFixture

  before(async () => ({ server, facility } = await startFacilityServer()))
  after(() => server.close())

  const body = (extra: Record<string, unknown> = {}) => ({
    facility: facility.id,
    type: 'walk-in',
    subject: facility.member.account.id,
    subjectType: 'patient',
    ...extra
  })
  const totals = (invoice: any) => ({
    total: invoice.total,
    paid: invoice.paid,
    balance: invoice.balance,
    itemCount: invoice.itemCount
  })

  describe('create', () => {
    it('creates a draft invoice with zero totals in the default currency', async () => {
      const res = await restClient(server.url, facility.member.token).post(
        '/billing-invoices',
        body({ notes: 'Pharmacy counter' })
      )
      assert.equal(res.status, 201)
      assert.equal(res.body.status, 'draft')
      assert.equal(res.body.currency, 'USD')
      assert.equal(res.body.finalizedAt, null)
      assert.equal(res.body.finalizedBy, null)
      assert.equal(res.body.encounter, null)
      assert.deepEqual(totals(res.body), { total: 0, paid: 0, balance: 0, itemCount: 0 })
      for (const internal of ['totalsRev', 'totalsAt', 'finalizePending', 'deleting', '_id'])
        assert.equal(internal in res.body, false, internal)
    })

    it('refuses anonymous callers (401) and facilities the caller does not belong to (404)', async () => {
      assert.equal((await restClient(server.url).post('/billing-invoices', body())).status, 401)
      assert.equal(
        (await restClient(server.url, facility.stranger.token).post('/billing-invoices', body())).status,
        404
      )
      assert.equal(
        (
          await restClient(server.url, facility.member.token).post(
            '/billing-invoices',
            body({ facility: facility.strangerFacility })
          )
        ).status,
        404
      )
    })

    it('refuses values outside the configured lists, bad currencies, missing and server-owned fields with 400s naming them', async () => {
      const api = restClient(server.url, facility.member.token)
      const lists = await api.post('/billing-invoices', body({ type: 'gift', subjectType: 'pet' }))
      assert.equal(lists.status, 400)
      assert.deepEqual(fieldsOf(lists.body).sort(), ['subjectType', 'type'])
      assert.match(
        lists.body.message,
        /'subjectType' must be one of: patient, account, organization, hmo, insurance/
      )
      const bad = await api.post('/billing-invoices', {
        facility: facility.id,
        type: 'walk-in',
        subjectType: 'patient',
        currency: 'usd',
        total: 5,
        status: 'finalized'
      })
      assert.equal(bad.status, 400)
      assert.deepEqual(fieldsOf(bad.body).sort(), ['currency', 'status', 'subject', 'total'])
    })
  })

  describe('read', () => {
    it('lists and gets invoices for members of the facility only', async () => {
      const { invoice } = await invoiceWithItems(server.url, facility, [12])
      const member = restClient(server.url, facility.member.token)
      const list = await member.get(`/billing-invoices?facility=${facility.id}&status=draft&balance[$gt]=0`)
      assert.equal(list.status, 200)
      assert.ok(list.body.data.some((i: any) => i.id === invoice.id))
      assert.ok(list.body.data.every((i: any) => i.facility === facility.id && i.balance > 0))
      const stranger = restClient(server.url, facility.stranger.token)
      assert.equal((await stranger.get(`/billing-invoices/${invoice.id}`)).status, 404)
      assert.equal((await stranger.get('/billing-invoices')).body.total, 0)
      assert.equal((await restClient(server.url).get('/billing-invoices')).status, 401)
      assert.equal((await member.get('/billing-invoices?totalsRev=1')).status, 400)
    })
  })

  describe('totals', () => {
    it('keeps total, paid, balance and itemCount right after every item and payment change', async () => {
      const member = restClient(server.url, facility.member.token)
      const biller = restClient(server.url, facility.biller.token)
      const invoice = (await member.post('/billing-invoices', body())).body
      const current = async () => totals((await member.get(`/billing-invoices/${invoice.id}`)).body)

      const a = (
        await member.post('/billing-items', {
          invoice: invoice.id,
          type: 'custom',
          price: 19.99,
          quantity: 3
        })
      ).body
      assert.deepEqual(await current(), { total: 59.97, paid: 0, balance: 59.97, itemCount: 1 })
      const b = (await member.post('/billing-items', { invoice: invoice.id, type: 'custom', price: 0.1 }))
        .body
      assert.deepEqual(await current(), { total: 60.07, paid: 0, balance: 60.07, itemCount: 2 })
      await pay(server.url, facility, a.id, 20.01)
      await pay(server.url, facility, b.id, 0.1)
      assert.deepEqual(await current(), { total: 60.07, paid: 20.11, balance: 39.96, itemCount: 2 })
      assert.equal((await member.patch(`/billing-items/${a.id}`, { quantity: 2 })).status, 200)
      assert.deepEqual(await current(), { total: 40.08, paid: 20.11, balance: 19.97, itemCount: 2 })
      assert.equal((await biller.delete(`/billing-items/${b.id}`)).status, 200)
      assert.deepEqual(await current(), { total: 39.98, paid: 20.01, balance: 19.97, itemCount: 1 })
    })
  })

  describe('change and finalize', () => {
    it('lets members change a draft invoice; strangers get 404 and bad fields 400', async () => {
      const { invoice } = await invoiceWithItems(server.url, facility, [])
      const member = restClient(server.url, facility.member.token)
      const patched = await member.patch(`/billing-invoices/${invoice.id}`, {
        notes: 'Paid by HMO',
        subjectType: 'hmo',
        dueAt: 1_900_000_000_000
      })
      assert.equal(patched.status, 200)
      assert.equal(patched.body.subjectType, 'hmo')
      assert.equal(
        (
          await restClient(server.url, facility.stranger.token).patch(`/billing-invoices/${invoice.id}`, {
            notes: 'x'
          })
        ).status,
        404
      )
      const bad = await member.patch(`/billing-invoices/${invoice.id}`, { total: 0, subjectType: 'pet' })
      assert.equal(bad.status, 400)
      assert.deepEqual(fieldsOf(bad.body), ['total'])
      assert.equal(
        (await member.patch(`/billing-invoices/${invoice.id}`, { subjectType: 'pet' })).status,
        400
      )
    })

    it('finalizes an invoice directly with every item; members without the billing privilege get 403', async () => {
      const { invoice, items } = await invoiceWithItems(server.url, facility, [10, 20])
      const member = await restClient(server.url, facility.member.token).patch(
        `/billing-invoices/${invoice.id}`,
        { finalize: true }
      )
      assert.equal(member.status, 403)
      const res = await restClient(server.url, facility.biller.token).patch(
        `/billing-invoices/${invoice.id}`,
        { finalize: true, notes: 'Closed' }
      )
      assert.equal(res.status, 200)
      assert.equal(res.body.status, 'finalized')
      assert.equal(res.body.notes, 'Closed')
      assert.equal(res.body.finalizedBy, facility.biller.account.id)
      for (const item of items) {
        const fresh = (await restClient(server.url, facility.member.token).get(`/billing-items/${item.id}`))
          .body
        assert.equal(fresh.status, 'finalized')
        assert.equal(fresh.finalizedAt, res.body.finalizedAt)
      }
      const again = await restClient(server.url, facility.biller.token).patch(
        `/billing-invoices/${invoice.id}`,
        { notes: 'Reopened?' }
      )
      assert.equal(again.status, 409)
      assert.match(again.body.message, /finalized/)
    })
  })

  describe('remove: a removed invoice takes its items and their payments with it', () => {
    it('deletes the invoice with all its items and their payments', async () => {
      const { invoice, items } = await invoiceWithItems(server.url, facility, [10, 20, 30])
      await pay(server.url, facility, items[0].id, 5)
      await pay(server.url, facility, items[0].id, 5)
      await pay(server.url, facility, items[2].id, 30)
      // Finalized invoices are deleted all the same (state table: any → deleted).
      assert.equal(
        (
          await restClient(server.url, facility.biller.token).patch(`/billing-invoices/${invoice.id}`, {
            finalize: true
          })
        ).status,
        200
      )
      const res = await restClient(server.url, facility.biller.token).delete(
        `/billing-invoices/${invoice.id}`
      )
      assert.equal(res.status, 200)
      assert.equal(res.body.id, invoice.id)
      const member = restClient(server.url, facility.member.token)
      assert.equal((await member.get(`/billing-invoices/${invoice.id}`)).status, 404)
      assert.equal((await member.get(`/billing-items?invoice=${invoice.id}`)).body.total, 0)
      assert.equal((await member.get(`/billing-payments?invoice=${invoice.id}`)).body.total, 0)
      for (const item of items)
        assert.equal((await member.get(`/billing-payments?item=${item.id}`)).body.total, 0)
      const stored = await (server.app.service('billing-payments' as any) as any)._find({
        query: { invoice: invoice.id },
        paginate: false
      })
      assert.deepEqual(stored, [])
    })

    it('unlinks the encounter of a deleted invoice', async () => {
      const encounter = (
        await restClient(server.url, facility.member.token).post('/medical-encounters', {
          facility: facility.id,
          patient: facility.member.account.id,
          invoice: true
        })
      ).body
      assert.equal(
        (await restClient(server.url, facility.owner.token).delete(`/billing-invoices/${encounter.invoice}`))
          .status,
        200
      )
      const fresh = (
        await restClient(server.url, facility.member.token).get(`/medical-encounters/${encounter.id}`)
      ).body
      assert.equal(fresh.invoice, null)
    })

    it('refuses members without the billing privilege (403), strangers (404) and multi deletes (405)', async () => {
      const { invoice } = await invoiceWithItems(server.url, facility, [1])
      assert.equal(
        (await restClient(server.url, facility.member.token).delete(`/billing-invoices/${invoice.id}`))
          .status,
        403
      )
      assert.equal(
        (await restClient(server.url, facility.stranger.token).delete(`/billing-invoices/${invoice.id}`))
          .status,
        404
      )
      assert.equal((await restClient(server.url).delete(`/billing-invoices/${invoice.id}`)).status, 401)
      assert.equal(
        (await restClient(server.url, facility.biller.token).delete('/billing-invoices')).status,
        405
      )
      assert.equal(
        (await restClient(server.url, facility.member.token).get(`/billing-invoices/${invoice.id}`)).status,
        200
      )
    })
  })
})
