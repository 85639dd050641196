// $analytics on payment intents: sums of netAmount and of receivables over the intents a find selects (same
// filters, same access), computed in the store, grouped per currency.
import assert from 'node:assert/strict'
import { http, type TestServer } from '../../helpers/app'
import { startFacilityServer, type FacilityFixture } from '../../helpers/billing'

describe('billing-payment-intents $analytics', function () {
  this.timeout(30000)
  let server: TestServer
  let facility: FacilityFixture
  let url: string

  const seed = async (token: string, facilityId: string, currency: string, amounts: number[]) => {
    for (const amount of amounts) {
      const res = await http(url, 'POST', '/billing-payment-intents', {
        token,
        body: {
          gatewayType: 'sandbox-card',
          currency,
          facility: facilityId,
          items: [{ name: 'Seed', amountPerItem: amount, quantity: 2 }]
        }
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
    }
  }

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    url = server.url
    await seed(facility.biller.token, facility.id, 'USD', [10, 25.25])
    await seed(facility.biller.token, facility.id, 'EUR', [100])
    await seed(facility.stranger.token, facility.strangerFacility, 'USD', [999])
  })
  after(() => server?.close())

  const analytics = (token: string | undefined, query: string) =>
    http(url, 'GET', `/billing-payment-intents?${query}`, { token })

  it('sums netAmount per currency over what the caller may read', async () => {
    const res = await analytics(facility.member.token, '$analytics=net-amount-total')
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(res.body, {
      type: 'net-amount-total',
      count: 3,
      currencies: [
        { currency: 'EUR', value: 200, count: 1 },
        { currency: 'USD', value: 70.5, count: 2 }
      ]
    })
  })

  it('answers value, currency and count at the top when the selection has one currency', async () => {
    const res = await analytics(
      facility.member.token,
      `$analytics=net-amount-total&currency=USD&facility=${facility.id}`
    )
    assert.deepEqual(res.body, {
      type: 'net-amount-total',
      currency: 'USD',
      value: 70.5,
      count: 2,
      currencies: [{ currency: 'USD', value: 70.5, count: 2 }]
    })
  })

  it('sums each receivables field (gross, fees, net) with the same filters', async () => {
    const res = await analytics(facility.biller.token, '$analytics=receivables-total&currency=USD')
    // 20 → fees 0.58 + 0.30; 50.5 → fees 1.46 + 0.30
    assert.deepEqual(res.body.value, { gross: 70.5, fees: 2.64, net: 67.86 })
    assert.equal(res.body.count, 2)
    const eur = await analytics(facility.biller.token, '$analytics=receivables-total&currency=EUR')
    assert.deepEqual(eur.body.value, { gross: 200, fees: 6.1, net: 193.9 })
  })

  it('gives a caller only the sums of what it may read, and zero when nothing is selected', async () => {
    const stranger = await analytics(facility.stranger.token, '$analytics=net-amount-total')
    assert.deepEqual(stranger.body.currencies, [{ currency: 'USD', value: 1998, count: 1 }])
    const none = await analytics(
      facility.stranger.token,
      `$analytics=net-amount-total&facility=${facility.id}`
    )
    assert.equal(none.body.count, 0)
    assert.equal(none.body.value, 0)
  })

  it('refuses an unknown analytics type (400) and anonymous callers (401)', async () => {
    assert.equal((await analytics(facility.member.token, '$analytics=average')).status, 400)
    assert.equal((await analytics(undefined, '$analytics=net-amount-total')).status, 401)
  })

  it('leaves plain finds as they were (a page of intents)', async () => {
    const res = await analytics(facility.member.token, '$limit=2')
    assert.equal(res.body.total, 3)
    assert.equal(res.body.data.length, 2)
  })
})
