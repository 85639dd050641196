import assert from 'node:assert/strict'
import { restClient, type TestServer } from '../../helpers/app'
import { fieldsOf, pay, type FacilityFixture, startFacilityServer } from '../../helpers/billing'

describe('medical-encounters', () => {
  let server: TestServer
  let facility: FacilityFixture
  let patient: string

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    patient = facility.member.account.id
  })
  after(() => server.close())

  const encounter = async (extra: Record<string, unknown> = {}, token = facility.member.token) =>
    restClient(server.url, token).post('/medical-encounters', { facility: facility.id, patient, ...extra })

  /** An encounter with an invoice holding items of the given prices (added by a plain member). */
  const encounterWithItems = async (prices: number[]) => {
    const created = await encounter({ invoice: true, type: 'outpatient', reason: 'Check-up' })
    assert.equal(created.status, 201)
    const api = restClient(server.url, facility.member.token)
    const items = []
    for (const price of prices) {
      const item = await api.post('/billing-items', {
        invoice: created.body.invoice,
        type: 'custom',
        price,
        quantity: 2
      })
      assert.equal(item.status, 201, JSON.stringify(item.body))
      items.push(item.body)
    }
    return { encounter: created.body, items }
  }

  describe('create', () => {
    it('creates a draft encounter with a default type, a start time and no invoice', async () => {
      const res = await encounter()
      assert.equal(res.status, 201)
      assert.equal(res.body.status, 'draft')
      assert.equal(res.body.type, 'outpatient')
      assert.equal(typeof res.body.startedAt, 'number')
      assert.equal(res.body.invoice, null)
      assert.equal(res.body.finalizedAt, null)
      assert.equal(res.body.createdBy, facility.member.account.id)
    })

    it('with invoice: true also creates a draft invoice for the patient at the facility and records its id', async () => {
      const res = await encounter({ invoice: true, type: 'emergency' })
      assert.equal(res.status, 201)
      assert.equal(typeof res.body.invoice, 'string')
      const invoice = await restClient(server.url, facility.member.token).get(
        `/billing-invoices/${res.body.invoice}`
      )
      assert.equal(invoice.status, 200)
      assert.equal(invoice.body.status, 'draft')
      assert.equal(invoice.body.facility, facility.id)
      assert.equal(invoice.body.subject, patient)
      assert.equal(invoice.body.subjectType, 'patient')
      assert.equal(invoice.body.type, 'encounter')
      assert.equal(invoice.body.encounter, res.body.id)
      assert.deepEqual([invoice.body.total, invoice.body.paid, invoice.body.balance], [0, 0, 0])
    })

    it('refuses anonymous callers (401) and facilities the caller does not belong to (404)', async () => {
      assert.equal(
        (await restClient(server.url).post('/medical-encounters', { facility: facility.id, patient })).status,
        401
      )
      const res = await encounter({}, facility.stranger.token)
      assert.equal(res.status, 404)
      assert.match(res.body.message, /No facility found/)
    })

    it('refuses an unknown type, a missing patient, a non-boolean invoice and server-owned fields with 400s naming them', async () => {
      const type = await encounter({ type: 'spa' })
      assert.equal(type.status, 400)
      assert.deepEqual(fieldsOf(type.body), ['type'])
      const api = restClient(server.url, facility.member.token)
      const bad = await api.post('/medical-encounters', {
        facility: facility.id,
        invoice: 'yes',
        status: 'finalized'
      })
      assert.equal(bad.status, 400)
      assert.deepEqual(fieldsOf(bad.body).sort(), ['invoice', 'patient', 'status'])
    })
  })

  describe('read and change', () => {
    it('shows encounters to members of the facility only', async () => {
      const created = (await encounter()).body
      assert.equal(
        (await restClient(server.url, facility.owner.token).get(`/medical-encounters/${created.id}`)).status,
        200
      )
      assert.equal(
        (await restClient(server.url, facility.stranger.token).get(`/medical-encounters/${created.id}`))
          .status,
        404
      )
      const list = await restClient(server.url, facility.stranger.token).get('/medical-encounters')
      assert.equal(list.body.total, 0)
      const mine = await restClient(server.url, facility.member.token).get(
        `/medical-encounters?patient=${patient}&status=draft`
      )
      assert.ok(mine.body.data.some((e: any) => e.id === created.id))
    })

    it('lets members change a draft encounter; strangers get 404 and bad fields 400', async () => {
      const created = (await encounter()).body
      const api = restClient(server.url, facility.member.token)
      const patched = await api.patch(`/medical-encounters/${created.id}`, {
        notes: 'BP 120/80',
        endedAt: Date.now()
      })
      assert.equal(patched.status, 200)
      assert.equal(patched.body.notes, 'BP 120/80')
      assert.equal(
        (
          await restClient(server.url, facility.stranger.token).patch(`/medical-encounters/${created.id}`, {
            notes: 'x'
          })
        ).status,
        404
      )
      const bad = await api.patch(`/medical-encounters/${created.id}`, {
        facility: facility.strangerFacility,
        finalize: false
      })
      assert.equal(bad.status, 400)
      assert.deepEqual(fieldsOf(bad.body).sort(), ['facility', 'finalize'])
      assert.equal(
        (await restClient(server.url, facility.member.token).patch('/medical-encounters', { notes: 'all' }))
          .status,
        405
      )
    })
  })

  describe('finalize', () => {
    it('finalizes the encounter, its invoice and every item of the invoice', async () => {
      const { encounter: created, items } = await encounterWithItems([10, 25.5, 4])
      const endedAt = Date.now()
      const res = await restClient(server.url, facility.biller.token).patch(
        `/medical-encounters/${created.id}`,
        { finalize: true, endedAt }
      )
      assert.equal(res.status, 200)
      assert.equal(res.body.status, 'finalized')
      assert.equal(res.body.endedAt, endedAt)
      assert.equal(res.body.finalizedBy, facility.biller.account.id)
      assert.equal(typeof res.body.finalizedAt, 'number')

      const api = restClient(server.url, facility.member.token)
      const invoice = (await api.get(`/billing-invoices/${created.invoice}`)).body
      assert.equal(invoice.status, 'finalized')
      assert.equal(invoice.finalizedAt, res.body.finalizedAt)
      assert.equal(invoice.finalizedBy, facility.biller.account.id)
      assert.equal(invoice.total, 79)
      const list = (await api.get(`/billing-items?invoice=${created.invoice}`)).body.data
      assert.equal(list.length, items.length)
      for (const item of list) {
        assert.equal(item.status, 'finalized')
        assert.equal(item.finalizedAt, res.body.finalizedAt)
        assert.equal(item.finalizedBy, facility.biller.account.id)
      }
    })

    it('changes nothing when the caller lacks the billing privilege (403) or is a stranger (404)', async () => {
      const { encounter: created } = await encounterWithItems([10, 20])
      const member = await restClient(server.url, facility.member.token).patch(
        `/medical-encounters/${created.id}`,
        { finalize: true }
      )
      assert.equal(member.status, 403)
      assert.match(member.body.message, /'billing' privilege/)
      assert.equal(
        (
          await restClient(server.url, facility.stranger.token).patch(`/medical-encounters/${created.id}`, {
            finalize: true
          })
        ).status,
        404
      )
      const api = restClient(server.url, facility.member.token)
      assert.equal((await api.get(`/medical-encounters/${created.id}`)).body.status, 'draft')
      assert.equal((await api.get(`/billing-invoices/${created.invoice}`)).body.status, 'draft')
      const items = (await api.get(`/billing-items?invoice=${created.invoice}`)).body.data
      assert.deepEqual(
        items.map((i: any) => i.status),
        ['draft', 'draft']
      )
    })

    it('lets a superadmin finalize an encounter that has no invoice', async () => {
      const created = (await encounter()).body
      const res = await restClient(server.url, facility.owner.token).patch(
        `/medical-encounters/${created.id}`,
        { finalize: true }
      )
      assert.equal(res.status, 200)
      assert.equal(res.body.status, 'finalized')
    })

    it('finalizes the encounter alone when its invoice was already finalized directly', async () => {
      const { encounter: created } = await encounterWithItems([5])
      const biller = restClient(server.url, facility.biller.token)
      const invoice = await biller.patch(`/billing-invoices/${created.invoice}`, { finalize: true })
      assert.equal(invoice.status, 200)
      assert.equal((await biller.get(`/medical-encounters/${created.id}`)).body.status, 'draft')
      const res = await biller.patch(`/medical-encounters/${created.id}`, { finalize: true })
      assert.equal(res.status, 200)
      assert.equal(res.body.status, 'finalized')
      assert.equal(
        (await biller.get(`/billing-invoices/${created.invoice}`)).body.finalizedAt,
        invoice.body.finalizedAt
      )
    })

    it('refuses to finalize twice or to change a finalized encounter (409), and keeps payments possible', async () => {
      const { encounter: created, items } = await encounterWithItems([30])
      const biller = restClient(server.url, facility.biller.token)
      assert.equal((await biller.patch(`/medical-encounters/${created.id}`, { finalize: true })).status, 200)
      const again = await biller.patch(`/medical-encounters/${created.id}`, { finalize: true })
      assert.equal(again.status, 409)
      assert.match(again.body.message, /finalized/)
      assert.equal((await biller.patch(`/medical-encounters/${created.id}`, { notes: 'late' })).status, 409)
      await pay(server.url, facility, items[0].id, 60)
      assert.equal((await biller.get(`/billing-invoices/${created.invoice}`)).body.balance, 0)
    })
  })
})
