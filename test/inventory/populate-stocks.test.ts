// `$populateStocks` on /inventory-variants, over HTTP and Socket.IO: both forms on find and get, variants without
// stocks, the usual filters, and the stocks of a whole page loaded with one query of the stocks service.
import assert from 'node:assert/strict'
import { restClient, socketClient, type TestServer } from '../helpers/app'
import { fieldsOf } from '../helpers/billing'
import {
  createStockroom,
  createVariant,
  startInventoryServer,
  stockedVariant,
  type InventoryFixture
} from '../helpers/inventory'

describe('inventory variants: $populateStocks', function () {
  this.timeout(60000)
  let server: TestServer
  let facility: InventoryFixture
  let rooms: { main: any; ward: any }
  let variants: { both: any; mainOnly: any; none: any }
  let socket: ReturnType<typeof socketClient>
  // Every call of the stocks service's `find` on the running app, counted by a hook this test registers.
  let stockFinds = 0
  const tag = 'populate-test'
  const member = () => restClient(server.url, facility.member.token)

  before(async () => {
    ;({ server, facility } = await startInventoryServer())
    const token = facility.keeper.token
    rooms = {
      main: await createStockroom(server.url, token, facility.id, 'Main'),
      ward: await createStockroom(server.url, token, facility.id, 'Ward')
    }
    const both = (
      await stockedVariant(server.url, token, facility.id, rooms.main.id, 7, { tags: [tag], name: 'A both' })
    ).variant
    const ward = await restClient(server.url, token).post('/inventory-stocks', {
      facility: facility.id,
      variant: both.sku,
      stockroom: rooms.ward.id,
      quantity: 2
    })
    assert.equal(ward.status, 201)
    const mainOnly = (
      await stockedVariant(server.url, token, facility.id, rooms.main.id, 3, {
        tags: [tag],
        name: 'B main only'
      })
    ).variant
    const none = await createVariant(server.url, token, facility.id, { tags: [tag], name: 'C none' })
    variants = { both, mainOnly, none }
    // Another facility's stock under the same sku must never show up.
    const theirRoom = await createStockroom(
      server.url,
      facility.stranger.token,
      facility.strangerFacility,
      'Theirs'
    )
    await stockedVariant(server.url, facility.stranger.token, facility.strangerFacility, theirRoom.id, 99, {
      sku: none.sku
    })
    socket = socketClient(server.url)
    await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.member.token })
    // `as any`: no ServiceTypes entry for the path.
    server.app.service('inventory-stocks' as any).hooks({
      before: {
        find: [
          async () => {
            stockFinds++
          }
        ]
      }
    })
  })
  after(async () => {
    socket?.close()
    await server.close()
  })

  const quantities = (variant: any) =>
    variant.$stocks.map((s: any) => [s.stockroom === rooms.main.id ? 'main' : 'ward', s.quantity]).sort()
  const byName = (list: any[]) => Object.fromEntries(list.map((v) => [v.name, v]))

  it('gives every listed variant its $stocks, [] for one without stocks (REST)', async () => {
    const res = await member().get(`/inventory-variants?tags=${tag}&$sort[name]=1&$populateStocks=true`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const list = byName(res.body.data)
    assert.deepEqual(Object.keys(list), ['A both', 'B main only', 'C none'])
    assert.deepEqual(quantities(list['A both']), [
      ['main', 7],
      ['ward', 2]
    ])
    assert.deepEqual(quantities(list['B main only']), [['main', 3]])
    assert.deepEqual(list['C none'].$stocks, [])
    assert.ok(
      list['A both'].$stocks.every((s: any) => s.pending === undefined && s.variant === variants.both.sku)
    )
  })

  it("keeps only the named stockroom's stocks with $populateStocks[stockroom], still listing every variant (REST)", async () => {
    const res = await member().get(
      `/inventory-variants?tags=${tag}&$sort[name]=1&$populateStocks[stockroom]=${rooms.ward.id}`
    )
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const list = byName(res.body.data)
    assert.deepEqual(Object.keys(list), ['A both', 'B main only', 'C none'])
    assert.deepEqual(quantities(list['A both']), [['ward', 2]])
    assert.deepEqual(list['B main only'].$stocks, [])
    assert.deepEqual(list['C none'].$stocks, [])
  })

  it('works on get in both forms (REST and Socket.IO)', async () => {
    const all = await member().get(`/inventory-variants/${variants.both.id}?$populateStocks=true`)
    assert.equal(all.status, 200)
    assert.deepEqual(quantities(all.body), [
      ['main', 7],
      ['ward', 2]
    ])
    const main = await member().get(
      `/inventory-variants/${variants.both.id}?$populateStocks[stockroom]=${rooms.main.id}`
    )
    assert.deepEqual(quantities(main.body), [['main', 7]])
    const none = await socket.client
      .service('inventory-variants')
      .get(variants.none.id, { query: { $populateStocks: true } })
    assert.deepEqual(none.$stocks, [])
    const ward = await socket.client
      .service('inventory-variants')
      .get(variants.both.id, { query: { $populateStocks: { stockroom: rooms.ward.id } } })
    assert.deepEqual(quantities(ward), [['ward', 2]])
    const plain = await member().get(`/inventory-variants/${variants.both.id}`)
    assert.equal(plain.body.$stocks, undefined)
  })

  it('works on find over Socket.IO in both forms, with $select, $limit and $skip', async () => {
    const page = await socket.client.service('inventory-variants').find({
      query: {
        tags: tag,
        $sort: { name: 1 },
        $limit: 2,
        $skip: 1,
        $select: ['name'],
        $populateStocks: true
      }
    })
    assert.equal(page.total, 3)
    assert.deepEqual(
      page.data.map((v: any) => v.name),
      ['B main only', 'C none']
    )
    assert.deepEqual(Object.keys(page.data[0]).sort(), ['$stocks', 'id', 'name'])
    assert.deepEqual(quantities(page.data[0]), [['main', 3]])
    const filtered = await socket.client
      .service('inventory-variants')
      .find({ query: { tags: tag, $sort: { name: 1 }, $populateStocks: { stockroom: rooms.main.id } } })
    assert.deepEqual(
      filtered.data.map((v: any) => v.$stocks.length),
      [1, 1, 0]
    )
  })

  it('loads the stocks of a whole page with one query of the stocks service, however many variants it holds', async () => {
    const before = stockFinds
    const res = await member().get(`/inventory-variants?tags=${tag}&$populateStocks=true`)
    assert.equal(res.body.data.length, 3)
    assert.equal(stockFinds - before, 1)
    const again = stockFinds
    await member().get(`/inventory-variants?$populateStocks=true&$limit=50`)
    assert.equal(stockFinds - again, 1)
    const none = stockFinds
    await member().get(`/inventory-variants?tags=${tag}`)
    assert.equal(stockFinds - none, 0)
  })

  it('answers an unknown key inside $populateStocks, or a value that is neither true nor an object, with a 400 naming it (REST and Socket.IO)', async () => {
    const unknown = await member().get(
      `/inventory-variants?$populateStocks[shelf]=3&$populateStocks[stockroom]=${rooms.main.id}`
    )
    assert.equal(unknown.status, 400)
    assert.deepEqual(fieldsOf(unknown.body), ['$populateStocks.shelf'])
    assert.match(unknown.body.message, /\$populateStocks\.shelf/)
    const onGet = await member().get(`/inventory-variants/${variants.both.id}?$populateStocks[lot]=A`)
    assert.equal(onGet.status, 400)
    assert.deepEqual(fieldsOf(onGet.body), ['$populateStocks.lot'])
    const value = await member().get('/inventory-variants?$populateStocks=yes')
    assert.equal(value.status, 400)
    assert.deepEqual(fieldsOf(value.body), ['$populateStocks'])
    await assert.rejects(
      // @ts-expect-error: `$populateStocks` takes a stockroom only (and the server says 400)
      socket.client.service('inventory-variants').find({ query: { $populateStocks: { variant: 'x' } } }),
      (error: any) => {
        assert.equal(error.code, 400)
        assert.deepEqual(fieldsOf(error), ['$populateStocks.variant'])
        return true
      }
    )
  })

  it('never shows stocks to callers who cannot read the variants (404 for a stranger, 401 anonymous)', async () => {
    const stranger = restClient(server.url, facility.stranger.token)
    assert.equal(
      (await stranger.get(`/inventory-variants/${variants.both.id}?$populateStocks=true`)).status,
      404
    )
    const theirs = await stranger.get('/inventory-variants?$populateStocks=true')
    assert.ok(
      theirs.body.data.every(
        (v: any) =>
          v.facility === facility.strangerFacility &&
          v.$stocks.every((s: any) => s.facility === facility.strangerFacility)
      )
    )
    assert.equal((await restClient(server.url).get('/inventory-variants?$populateStocks=true')).status, 401)
  })
})
