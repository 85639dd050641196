// What else the audit trail covers: encounters, a patient's billing documents (the patient of an item or payment
// is its invoice's), a find over several patients (one event per patient), and the chain under concurrent load
// plus the retention job (the kept chain still verifies).
import assert from 'node:assert/strict'
import { http, signUp, startServer, type SignedUp, type TestServer } from '../../helpers/app'
import { invoiceWithItems, pay, setupFacility, type FacilityFixture } from '../../helpers/billing'
import { auditLog } from '../../../src/audit/log'

const adminEmail = 'audit-cover-admin@example.test'
const adminPassword = 'Admin password 1'

describe('audit trail coverage', function () {
  this.timeout(60000)
  let server: TestServer
  let facility: FacilityFixture
  let admin: SignedUp

  const eventsOf = async (query: string, token = admin.token) => {
    const res = await http(server.url, 'GET', `/audit-events${query}`, { token })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.data as any[] // `as any`: JSON answers are untyped
  }

  before(async () => {
    server = await startServer({ admin: { email: adminEmail, password: adminPassword } })
    facility = await setupFacility(server.url)
    const login = await http(server.url, 'POST', '/authentication', {
      body: { email: adminEmail, password: adminPassword }
    })
    admin = {
      account: login.body.account,
      token: login.body.accessToken,
      email: adminEmail,
      password: adminPassword
    }
  })
  after(async () => {
    await server?.close()
  })

  it('records encounters with their patient and facility', async () => {
    const created = await http(server.url, 'POST', '/medical-encounters', {
      token: facility.member.token,
      body: { facility: facility.id, patient: facility.stranger.account.id }
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const [event] = await eventsOf(`?service=medical-encounters&action=create`)
    assert.deepEqual(event.ids, [created.body.id])
    assert.equal(event.patient, facility.stranger.account.id)
    assert.equal(event.facility, facility.id)
    assert.equal(event.status, 201)
    // The patient sees it, although they are no member of the facility.
    const theirs = await eventsOf(`?service=medical-encounters`, facility.stranger.token)
    assert.ok(theirs.some((e) => e.ids.includes(created.body.id)))
  })

  it("records a patient's invoice, items and payments with the invoice's patient", async () => {
    const { invoice, items } = await invoiceWithItems(server.url, facility, [20])
    const payment = await pay(server.url, facility, items[0].id, 5)
    const read = await http(server.url, 'GET', `/billing-payments/${payment.id}`, {
      token: facility.owner.token
    })
    assert.equal(read.status, 200)
    for (const [service, id] of [
      ['billing-invoices', invoice.id],
      ['billing-items', items[0].id],
      ['billing-payments', payment.id]
    ]) {
      const events = await eventsOf(`?service=${service}&$limit=100`)
      const event = events.find((e) => e.ids.includes(id))
      assert.ok(event, `${service} is recorded`)
      assert.equal(event.patient, facility.member.account.id, service)
      assert.equal(event.facility, facility.id)
    }
    const seenByPatient = await eventsOf(`?service=billing-payments`, facility.member.token)
    assert.ok(seenByPatient.some((e) => e.action === 'read' && e.actor === facility.owner.account.id))
  })

  it("records a payment intent paying a patient's invoice with that patient", async () => {
    const { invoice } = await invoiceWithItems(server.url, facility, [20])
    const created = await http(server.url, 'POST', '/billing-payment-intents', {
      token: facility.biller.token,
      body: {
        gatewayType: 'sandbox-card',
        currency: 'USD',
        facility: facility.id,
        invoice: invoice.id,
        items: [{ name: 'Invoice', amountPerItem: 20, quantity: 1 }]
      }
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const [event] = await eventsOf(`?service=billing-payment-intents&action=create`)
    assert.deepEqual(event.ids, [created.body.id])
    assert.equal(event.patient, facility.member.account.id)
    assert.equal(event.facility, facility.id)
  })

  it('records request orders for a patient with that patient and the owner facility (create, status move, read by the patient)', async () => {
    const created = await http(server.url, 'POST', '/request/orders', {
      token: facility.member.token,
      body: {
        owner: { organization: facility.id },
        requestedForType: 'patient',
        requestedFor: facility.stranger.account.id,
        items: [{ name: 'Saline' }]
      }
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const moved = await http(server.url, 'PATCH', `/request/orders/${created.body.id}`, {
      token: facility.member.token,
      body: { changeStatus: 'preparing' }
    })
    assert.equal(moved.status, 200)
    assert.equal(
      (
        await http(server.url, 'GET', `/request/orders/${created.body.id}`, {
          token: facility.stranger.token
        })
      ).status,
      200
    )
    const events = (await eventsOf(`?service=request/orders&$limit=100`)).filter((e) =>
      e.ids.includes(created.body.id)
    )
    assert.deepEqual(events.map((e) => e.action).sort(), ['create', 'patch', 'read'])
    assert.ok(events.every((e) => e.patient === facility.stranger.account.id && e.facility === facility.id))
    // The patient sees who touched their order.
    const theirs = await eventsOf(`?service=request/orders`, facility.stranger.token)
    assert.ok(theirs.some((e) => e.action === 'create' && e.actor === facility.member.account.id))
  })

  it('writes one event per patient of a find', async () => {
    const patients = await Promise.all([signUp(server.url), signUp(server.url)])
    for (const p of patients) {
      const res = await http(server.url, 'POST', '/medical-records', {
        token: facility.owner.token,
        body: { type: 'allergy', facility: facility.id, patient: p.account.id, name: 'x' }
      })
      assert.equal(res.status, 200)
    }
    const found = await http(server.url, 'GET', `/medical-records?$limit=50`, {
      token: facility.owner.token,
      headers: { 'x-request-id': 'multi-find' }
    })
    assert.equal(found.status, 200)
    const events = (await eventsOf(`?action=read&service=medical-records&$limit=100`)).filter(
      (e) => e.requestId === 'multi-find'
    )
    assert.equal(events.length, 2)
    for (const p of patients) {
      const mine = events.find((e) => e.patient === p.account.id)
      assert.ok(mine)
      const own = await eventsOf(`?patient=${p.account.id}&action=read`, p.token)
      assert.ok(own.some((e) => e.requestId === 'multi-find'))
    }
  })

  it('keeps one unbroken chain under concurrent calls, and after the retention job', async () => {
    await Promise.all(
      Array.from({ length: 30 }, () =>
        http(server.url, 'GET', '/medical-records?$limit=1', { token: facility.owner.token })
      )
    )
    const verified = await http(server.url, 'GET', '/audit-events/verify', { token: admin.token })
    assert.equal(verified.body.intact, true, JSON.stringify(verified.body))
    const log = auditLog(server.app)!
    const all = await eventsOf('?$limit=100&$sort[seq]=1')
    assert.ok(all.length > 30)
    // Retention as if the period ended just after the tenth event: the nine before it go, in chain order.
    const removed = await log.applyRetention(all[9].at + log.settings.retentionDays * 86400000)
    assert.ok(removed >= 1)
    const after = await eventsOf('?$limit=100&$sort[seq]=1')
    assert.ok(after[0].seq > all[0].seq)
    const again = await http(server.url, 'GET', '/audit-events/verify', { token: admin.token })
    assert.equal(again.body.intact, true, JSON.stringify(again.body))
    // What was removed is no gap (below the floor the pass recorded, in its own `retention` event).
    assert.equal(again.body.checked, verified.body.checked - removed + 1)
    assert.equal(again.body.floor, after[0].seq)
    assert.equal(again.body.missing, undefined)
  })

  it('records every answered call and keeps one chain when the retention job rewrites the file while calls are recorded', async () => {
    const log = auditLog(server.app)!
    const read = (index: number) =>
      http(server.url, 'GET', '/medical-records?$limit=1', {
        token: facility.owner.token,
        headers: { 'x-request-id': `retention-race-${index}` }
      })
    const [first] = await eventsOf('?$limit=1&$sort[seq]=1')
    const calls = Array.from({ length: 40 }, (_, index) => read(index))
    // The period ends just after the oldest kept event: it goes, in the middle of the calls.
    const retention = log.applyRetention(first.at + 1 + log.settings.retentionDays * 86400000)
    const answers = await Promise.all(calls)
    assert.ok(answers.every((answer) => answer.status === 200))
    assert.ok((await retention) >= 1)
    const more = await Promise.all(Array.from({ length: 10 }, (_, index) => read(40 + index)))
    assert.ok(more.every((answer) => answer.status === 200))
    const verified = await http(server.url, 'GET', '/audit-events/verify', { token: admin.token })
    assert.equal(verified.body.intact, true, JSON.stringify(verified.body))
    const recorded = new Set(
      (await eventsOf('?$limit=100&service=medical-records')).map((event) => event.requestId)
    )
    for (let index = 0; index < 50; index++)
      assert.ok(recorded.has(`retention-race-${index}`), `the event of call ${index}`)
  })
})
