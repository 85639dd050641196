// A wrong payment is voided, not deleted: it stays readable with who voided it, when and why, and its amount
// is owed again on its item and invoice.
import assert from 'node:assert/strict'
import { http, recordEvents, restClient, socketClient, waitUntil, type TestServer } from '../../helpers/app'
import {
  fieldsOf,
  invoiceWithItems,
  pay,
  startFacilityServer,
  type FacilityFixture
} from '../../helpers/billing'

describe('billing payments: void', () => {
  let server: TestServer
  let facility: FacilityFixture
  before(async () => {
    ;({ server, facility } = await startFacilityServer())
  })
  after(() => server.close())

  const biller = () => restClient(server.url, facility.biller.token)

  it('voids a payment for billing staff: it stays readable, marked voided, and its amount is owed again', async () => {
    const { invoice, items } = await invoiceWithItems(server.url, facility, [100])
    const payment = await pay(server.url, facility, items[0].id, 60)
    const res = await biller().patch(`/billing-payments/${payment.id}`, {
      void: true,
      voidReason: 'card declined later'
    })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(
      [res.body.status, res.body.voidedBy, res.body.voidReason, res.body.amount],
      ['voided', facility.biller.account.id, 'card declined later', 60]
    )
    assert.equal(typeof res.body.voidedAt, 'number')
    assert.equal(res.body.voidPending, undefined)
    const item = (await biller().get(`/billing-items/${items[0].id}`)).body
    assert.deepEqual([item.paid, item.balance, item.voided], [0, 100, undefined])
    const fresh = (await biller().get(`/billing-invoices/${invoice.id}`)).body
    assert.deepEqual([fresh.paid, fresh.balance], [0, 100])
    assert.equal(
      (await restClient(server.url, facility.member.token).get(`/billing-payments/${payment.id}`)).body
        .status,
      'voided'
    )
    // The full amount can be paid again.
    await pay(server.url, facility, items[0].id, 100)
  })

  it('voids a finalized payment too; a voided one cannot be voided again or changed (409)', async () => {
    const { items } = await invoiceWithItems(server.url, facility, [50])
    const payment = await pay(server.url, facility, items[0].id, 50)
    assert.equal((await biller().patch(`/billing-payments/${payment.id}`, { finalize: true })).status, 200)
    assert.equal((await biller().patch(`/billing-payments/${payment.id}`, { void: true })).status, 200)
    assert.equal((await biller().patch(`/billing-payments/${payment.id}`, { void: true })).status, 409)
    assert.equal((await biller().patch(`/billing-payments/${payment.id}`, { notes: 'late' })).status, 409)
    assert.equal((await biller().get(`/billing-items/${items[0].id}`)).body.paid, 0)
  })

  it('refuses a plain member (403), another facility (404), extra fields with void and a lone voidReason (400)', async () => {
    const { items } = await invoiceWithItems(server.url, facility, [40])
    const payment = await pay(server.url, facility, items[0].id, 40)
    assert.equal(
      (
        await restClient(server.url, facility.member.token).patch(`/billing-payments/${payment.id}`, {
          void: true
        })
      ).status,
      403
    )
    assert.equal(
      (
        await restClient(server.url, facility.stranger.token).patch(`/billing-payments/${payment.id}`, {
          void: true
        })
      ).status,
      404
    )
    const mixed = await biller().patch(`/billing-payments/${payment.id}`, { void: true, notes: 'x' })
    assert.equal(mixed.status, 400)
    assert.deepEqual(fieldsOf(mixed.body), ['notes'])
    const lone = await biller().patch(`/billing-payments/${payment.id}`, { voidReason: 'why' })
    assert.equal(lone.status, 400)
    assert.deepEqual(fieldsOf(lone.body), ['voidReason'])
    assert.equal((await biller().get(`/billing-payments/${payment.id}`)).body.status, 'draft')
    assert.equal((await biller().get(`/billing-items/${items[0].id}`)).body.paid, 40)
  })

  it('voids over Socket.IO with a patched event, releasing the amount exactly once under concurrent voids', async () => {
    const { items } = await invoiceWithItems(server.url, facility, [90])
    const payment = await pay(server.url, facility, items[0].id, 30)
    await pay(server.url, facility, items[0].id, 30)
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.biller.token })
      const events = recordEvents(socket.client, 'billing-payments')
      const attempts = await Promise.allSettled([
        socket.client.service('billing-payments').patch(payment.id, { void: true } as any), // `any`: the typed client does not know `void` yet
        ...Array.from({ length: 4 }, () =>
          http(server.url, 'PATCH', `/billing-payments/${payment.id}`, {
            token: facility.biller.token,
            body: { void: true }
          })
        )
      ])
      const statuses = attempts.map((a, i) =>
        i === 0
          ? a.status === 'fulfilled'
            ? 200
            : (a.reason as any).code
          : a.status === 'fulfilled'
            ? (a.value as any).status
            : 0
      )
      assert.equal(statuses.filter((s) => s === 200).length, 1, `one void wins: ${statuses}`)
      assert.ok(
        statuses.every((s) => s === 200 || s === 409),
        `${statuses}`
      )
      await waitUntil(
        () =>
          events.some((e) => e.event === 'patched' && e.data.id === payment.id && e.data.status === 'voided'),
        5000,
        'patched event'
      )
    } finally {
      socket.close()
    }
    assert.equal((await biller().get(`/billing-items/${items[0].id}`)).body.paid, 30)
  })
})
