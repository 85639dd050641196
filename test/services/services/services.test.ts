import assert from 'node:assert/strict'
import { restClient, type TestServer } from '../../helpers/app'
import { fieldsOf, type FacilityFixture, startFacilityServer } from '../../helpers/billing'

describe('services (facility catalogue)', () => {
  let server: TestServer
  let facility: FacilityFixture

  before(async () => ({ server, facility } = await startFacilityServer()))
  after(() => server.close())

  const body = (extra: Record<string, unknown> = {}) => ({
    facility: facility.id,
    name: 'General consultation',
    type: 'consultation',
    price: 45.5,
    ...extra
  })

  it('lets billing staff add a service, with the default currency and active', async () => {
    const res = await restClient(server.url, facility.biller.token).post('/services', body({ code: 'GC-1' }))
    assert.equal(res.status, 201)
    assert.equal(res.body.facility, facility.id)
    assert.equal(res.body.price, 45.5)
    assert.equal(res.body.currency, 'USD')
    assert.equal(res.body.active, true)
    assert.equal(res.body.createdBy, facility.biller.account.id)
  })

  it('lets a superadmin add a service', async () => {
    const res = await restClient(server.url, facility.owner.token).post(
      '/services',
      body({ name: 'X-ray', type: 'imaging', price: 80, currency: 'EUR' })
    )
    assert.equal(res.status, 201)
    assert.equal(res.body.currency, 'EUR')
  })

  it('refuses a member without the billing privilege (403), a non-member (404) and an anonymous caller (401)', async () => {
    assert.equal((await restClient(server.url, facility.member.token).post('/services', body())).status, 403)
    const stranger = await restClient(server.url, facility.stranger.token).post('/services', body())
    assert.equal(stranger.status, 404)
    assert.match(stranger.body.message, /No facility found/)
    assert.equal((await restClient(server.url).post('/services', body())).status, 401)
  })

  it('refuses an unknown type, a price with too many decimals, a missing name and unknown fields with 400s naming them', async () => {
    const api = restClient(server.url, facility.biller.token)
    const type = await api.post('/services', body({ type: 'massage' }))
    assert.equal(type.status, 400)
    assert.deepEqual(fieldsOf(type.body), ['type'])
    assert.match(type.body.message, /must be one of: consultation, procedure/)
    const price = await api.post('/services', body({ price: 1.234 }))
    assert.equal(price.status, 400)
    assert.deepEqual(fieldsOf(price.body), ['price'])
    const missing = await api.post('/services', {
      facility: facility.id,
      type: 'consultation',
      price: 1,
      colour: 'red'
    })
    assert.equal(missing.status, 400)
    assert.deepEqual(fieldsOf(missing.body).sort(), ['colour', 'name'])
    assert.equal((await api.post('/services', body({ price: -1 }))).status, 400)
  })

  it('shows members their facility catalogue and nobody else', async () => {
    const mine = await restClient(server.url, facility.member.token).get(`/services?facility=${facility.id}`)
    assert.equal(mine.status, 200)
    assert.ok(mine.body.total >= 2)
    assert.ok(mine.body.data.every((s: any) => s.facility === facility.id))
    const theirs = await restClient(server.url, facility.stranger.token).get('/services')
    assert.equal(theirs.status, 200)
    assert.equal(theirs.body.total, 0)
    const one = mine.body.data[0]
    assert.equal(
      (await restClient(server.url, facility.stranger.token).get(`/services/${one.id}`)).status,
      404
    )
    assert.equal((await restClient(server.url).get('/services')).status, 401)
    assert.equal(
      (await restClient(server.url, facility.member.token).get('/services?price[$foo]=1')).status,
      400
    )
  })

  it('lets billing staff change a price and remove a service; members get 403 and strangers 404', async () => {
    const api = restClient(server.url, facility.biller.token)
    const created = (await api.post('/services', body({ name: 'Dressing', type: 'procedure', price: 10 })))
      .body
    assert.equal(
      (await restClient(server.url, facility.member.token).patch(`/services/${created.id}`, { price: 12 }))
        .status,
      403
    )
    assert.equal(
      (await restClient(server.url, facility.stranger.token).patch(`/services/${created.id}`, { price: 12 }))
        .status,
      404
    )
    assert.equal((await api.patch(`/services/${created.id}`, { price: 12.345 })).status, 400)
    assert.equal(
      (await api.patch(`/services/${created.id}`, { facility: facility.strangerFacility })).status,
      400
    )
    const patched = await api.patch(`/services/${created.id}`, { price: 12 })
    assert.equal(patched.status, 200)
    assert.equal(patched.body.price, 12)
    assert.equal(
      (await restClient(server.url, facility.member.token).delete(`/services/${created.id}`)).status,
      403
    )
    assert.equal((await api.delete(`/services/${created.id}`)).status, 200)
    assert.equal((await api.get(`/services/${created.id}`)).status, 404)
  })
})
