// Idempotency-Key on payment intents (Stripe's semantics): a retried POST or capture answers the first result
// without doing the work again, a key reused with another body is a 409, keys are the caller's own, and
// twenty simultaneous captures under one key capture once.
import assert from 'node:assert/strict'
import { http, startServer, type TestServer } from '../../helpers/app'
import { invoiceWithItems, startFacilityServer, type FacilityFixture } from '../../helpers/billing'
import { answerCheckout } from '../../helpers/gateways'
import { idempotencyStore } from '../../../src/billing/idempotency'

describe('billing-payment-intents Idempotency-Key', function () {
  this.timeout(30000)
  let server: TestServer
  let facility: FacilityFixture
  let url: string

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    url = server.url
  })
  after(() => server?.close())

  const body = (amount = 10, extra: Record<string, unknown> = {}) => ({
    gatewayType: 'sandbox-card',
    currency: 'USD',
    facility: facility.id,
    items: [{ name: 'Deposit', amountPerItem: amount, quantity: 1 }],
    ...extra
  })
  const post = (key: string | undefined, data: unknown, token = facility.biller.token) =>
    http(url, 'POST', '/billing-payment-intents', {
      token,
      body: data,
      headers: key ? { 'idempotency-key': key } : {}
    })
  const capture = (id: string, key?: string, token = facility.biller.token) =>
    http(url, 'PATCH', `/billing-payment-intents/${id}`, {
      token,
      body: { capture: true },
      headers: key ? { 'idempotency-key': key } : {}
    })
  const count = async () =>
    (
      await http(url, 'GET', `/billing-payment-intents?facility=${facility.id}&$limit=0`, {
        token: facility.biller.token
      })
    ).body.total

  it('answers a retried POST with the first result (same status and body) and creates one intent', async () => {
    const before = await count()
    const first = await post('create-1', body())
    const again = await post('create-1', body())
    assert.equal(first.status, 201)
    assert.equal(again.status, 201)
    assert.deepEqual(again.body, first.body)
    assert.equal(await count(), before + 1)
  })

  it('refuses the same key with another body (409) and creates nothing', async () => {
    const before = await count()
    assert.equal((await post('create-2', body(10))).status, 201)
    const other = await post('create-2', body(11))
    assert.equal(other.status, 409)
    assert.match(other.body.message, /Idempotency-Key/)
    assert.equal(await count(), before + 1)
  })

  it('replays a client error under the same key, and keeps keys apart per account', async () => {
    const refused = await post('create-3', body(10, { gatewayType: 'bogus-card' }))
    assert.equal(refused.status, 400)
    const again = await post('create-3', body(10, { gatewayType: 'bogus-card' }))
    assert.equal(again.status, 400)
    assert.equal(again.body.message, refused.body.message)
    const owners = await post('create-1', body(), facility.owner.token)
    assert.equal(owners.status, 201, 'another account’s key of the same name is its own')
  })

  it('captures once for twenty simultaneous captures with one key, all answered alike', async () => {
    const { invoice, items } = await invoiceWithItems(url, facility, [100])
    const intent = (await post(undefined, body(40, { invoice: invoice.id }))).body
    await answerCheckout(intent.checkout.approvalURL, 'approve')
    const answers = await Promise.all(Array.from({ length: 20 }, () => capture(intent.id, 'capture-1')))
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [200])
    for (const answer of answers) assert.deepEqual(answer.body, answers[0].body)
    assert.equal(answers[0].body.status, 'captured')
    const stored = (
      await http(url, 'GET', `/billing-payment-intents/${intent.id}`, { token: facility.biller.token })
    ).body
    assert.equal(stored.statusHistory.filter((s: any) => s.status === 'capturing').length, 1)
    const payments = (
      await http(url, 'GET', `/billing-payments?invoice=${invoice.id}`, { token: facility.biller.token })
    ).body
    assert.equal(payments.total, 1)
    assert.equal(
      (await http(url, 'GET', `/billing-items/${items[0].id}`, { token: facility.biller.token })).body
        .balance,
      60
    )
  })

  it('without a key, lets exactly one of twenty simultaneous captures through (the others: 409)', async () => {
    const intent = (await post(undefined, body(5))).body
    await answerCheckout(intent.checkout.approvalURL, 'approve')
    const answers = await Promise.all(Array.from({ length: 20 }, () => capture(intent.id)))
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(19).fill(409)])
  })

  it('keeps a key for 24 hours: after that the same key starts a new request instead of answering the first result', async () => {
    const first = await post('expiring-1', body(12))
    assert.equal(first.status, 201)
    const store = idempotencyStore(server.app) // the keys' own store, read and aged as a day passing would
    const [record] = await store._find({
      query: { key: `${facility.biller.account.id}:billing-payment-intents:create:expiring-1` },
      paginate: false
    })
    assert.equal(record.expiresAt - record.createdAt, 24 * 60 * 60 * 1000)
    assert.deepEqual(
      (await post('expiring-1', body(12))).body,
      first.body,
      'within the day: the first result'
    )
    assert.equal(
      (await post('expiring-1', body(13))).status,
      409,
      'within the day: another body is a conflict'
    )
    await store._patch(record.id, { expiresAt: Date.now() - 1 })
    const later = await post('expiring-1', body(13))
    assert.equal(later.status, 201, JSON.stringify(later.body))
    assert.notEqual(later.body.id, first.body.id)
    assert.equal(later.body.netAmount, 13)
  })

  it('refuses an empty or overlong key (400)', async () => {
    assert.equal((await post('x'.repeat(256), body())).status, 400)
  })
  it('removes keys whose 24 hours are over at the next pass (here: a restart), keeping the others', async () => {
    assert.equal((await post('purge-old', body(14))).status, 201)
    assert.equal((await post('purge-new', body(15))).status, 201)
    const keyOf = (name: string) => `${facility.biller.account.id}:billing-payment-intents:create:${name}`
    const stored = async (name: string) =>
      (await idempotencyStore(server.app)._find({ query: { key: keyOf(name) }, paginate: false })).length
    const [old] = await idempotencyStore(server.app)._find({
      query: { key: keyOf('purge-old') },
      paginate: false
    })
    await idempotencyStore(server.app)._patch(old.id, { expiresAt: Date.now() - 1 }) // a day passing
    const dataDir = server.dataDir
    const mongodb = server.app.get('mongodb')
    await server.close({ keep: true })
    server = await startServer({ dataDir, mongodb })
    url = server.url
    assert.deepEqual([await stored('purge-old'), await stored('purge-new')], [0, 1])
  })
})
