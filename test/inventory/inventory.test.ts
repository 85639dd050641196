// Inventory over HTTP and Socket.IO: stockrooms, variants (sku per facility, first stock, archive, remove),
// stocks (one per variant, stockroom and lot) and their movements, with every caller's neighbours.
import assert from 'node:assert/strict'
import { recordEvents, refusal, restClient, socketClient, waitUntil, type TestServer } from '../helpers/app'
import { fieldsOf } from '../helpers/billing'
import {
  createStockroom,
  createVariant,
  freshSku,
  startInventoryServer,
  stockedVariant,
  type InventoryFixture
} from '../helpers/inventory'
import { rawEmit } from '../helpers/tenants'

describe('inventory: stockrooms, variants, stocks and movements', function () {
  this.timeout(60000)
  let server: TestServer
  let facility: InventoryFixture
  let room: any
  const api = (token?: string) => restClient(server.url, token)

  before(async () => {
    ;({ server, facility } = await startInventoryServer())
    room = await createStockroom(server.url, facility.keeper.token, facility.id)
  })
  after(() => server.close())

  describe('stockrooms', () => {
    it('lets the inventory privilege and superadmins create a stockroom', async () => {
      const res = await api(facility.keeper.token).post('/inventory-stockrooms', {
        facility: facility.id,
        name: 'Ward 3 cupboard',
        description: 'Locked'
      })
      assert.equal(res.status, 201)
      assert.equal(res.body.facility, facility.id)
      assert.equal(res.body.createdBy, facility.keeper.account.id)
      assert.equal(
        (
          await api(facility.owner.token).post('/inventory-stockrooms', {
            facility: facility.id,
            name: 'Store room'
          })
        ).status,
        201
      )
    })

    it('refuses a member without the privilege (403), a stranger (404), no token (401) and a missing name (400 naming it)', async () => {
      const body = { facility: facility.id, name: 'Back room' }
      assert.equal((await api(facility.member.token).post('/inventory-stockrooms', body)).status, 403)
      assert.equal((await api(facility.stranger.token).post('/inventory-stockrooms', body)).status, 404)
      assert.equal((await api().post('/inventory-stockrooms', body)).status, 401)
      const missing = await api(facility.keeper.token).post('/inventory-stockrooms', {
        facility: facility.id
      })
      assert.equal(missing.status, 400)
      assert.deepEqual(fieldsOf(missing.body), ['name'])
    })

    it('shows members the stockroom, lets only the privilege rename it, and hides it from strangers (404)', async () => {
      assert.equal((await api(facility.member.token).get(`/inventory-stockrooms/${room.id}`)).status, 200)
      assert.equal(
        (await api(facility.member.token).patch(`/inventory-stockrooms/${room.id}`, { name: 'X' })).status,
        403
      )
      assert.equal((await api(facility.stranger.token).get(`/inventory-stockrooms/${room.id}`)).status, 404)
      assert.equal(
        (await api(facility.stranger.token).patch(`/inventory-stockrooms/${room.id}`, { name: 'X' })).status,
        404
      )
      const renamed = await api(facility.keeper.token).patch(`/inventory-stockrooms/${room.id}`, {
        description: 'Ground floor'
      })
      assert.equal(renamed.status, 200)
      assert.equal(renamed.body.description, 'Ground floor')
    })

    it('removes an empty stockroom but refuses (409) one that holds stocks', async () => {
      const empty = await createStockroom(server.url, facility.keeper.token, facility.id, 'Temporary')
      assert.equal((await api(facility.keeper.token).delete(`/inventory-stockrooms/${empty.id}`)).status, 200)
      const used = await createStockroom(server.url, facility.keeper.token, facility.id, 'Used')
      await stockedVariant(server.url, facility.keeper.token, facility.id, used.id, 1)
      const refused = await api(facility.keeper.token).delete(`/inventory-stockrooms/${used.id}`)
      assert.equal(refused.status, 409)
      assert.match(refused.body.message, /holds or held stocks/)
    })
  })

  describe('variants', () => {
    it('creates a variant with its first stock in the named stockroom, recorded as a movement', async () => {
      const sku = freshSku('AMOX')
      const res = await api(facility.keeper.token).post('/inventory-variants', {
        facility: facility.id,
        sku,
        name: 'Amoxicillin 250 mg',
        unit: 'capsule',
        price: 0.4,
        unitCost: 0.12,
        barcode: '4006381333931',
        tags: ['antibiotic'],
        reorderLevel: 10,
        isMedicine: true,
        sellable: true,
        initialStock: 30,
        stockroom: room.id
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.equal(res.body.sku, sku)
      assert.equal(res.body.currency, 'USD')
      assert.equal(res.body.archived, false)
      assert.equal(res.body.$stocks.length, 1)
      const stock = res.body.$stocks[0]
      assert.deepEqual(
        [stock.variant, stock.stockroom, stock.quantity, stock.facility],
        [sku, room.id, 30, facility.id]
      )
      assert.equal(stock.pending, undefined)
      const ledger = await api(facility.member.token).get(`/inventory-stock-movements?stock=${stock.id}`)
      assert.equal(ledger.status, 200)
      assert.deepEqual(
        ledger.body.data.map((m: any) => [m.delta, m.quantity, m.reason, m.createdBy]),
        [[30, 30, 'initial stock', facility.keeper.account.id]]
      )
    })

    it('refuses a sku already used in the facility (409) but accepts it in another facility', async () => {
      const sku = freshSku('DUP')
      await createVariant(server.url, facility.keeper.token, facility.id, { sku })
      const again = await api(facility.keeper.token).post('/inventory-variants', {
        facility: facility.id,
        sku,
        name: 'Other'
      })
      assert.equal(again.status, 409)
      assert.match(again.body.message, new RegExp(`sku '${sku}' already exists`))
      const elsewhere = await api(facility.stranger.token).post('/inventory-variants', {
        facility: facility.strangerFacility,
        sku,
        name: 'Other'
      })
      assert.equal(elsewhere.status, 201)
    })

    it('answers 400 naming the field: missing sku, too many decimals, initialStock without stockroom, a stockroom of another facility, a negative stock', async () => {
      const k = api(facility.keeper.token)
      const cases: [Record<string, unknown>, string][] = [
        [{ facility: facility.id, name: 'No sku' }, 'sku'],
        [{ facility: facility.id, sku: freshSku(), name: 'Price', price: 1.234 }, 'price'],
        [{ facility: facility.id, sku: freshSku(), name: 'Stock', initialStock: 5 }, 'stockroom'],
        [
          { facility: facility.id, sku: freshSku(), name: 'Room', initialStock: 5, stockroom: 'nope' },
          'stockroom'
        ],
        [
          { facility: facility.id, sku: freshSku(), name: 'Negative', initialStock: -1, stockroom: room.id },
          'initialStock'
        ],
        [{ facility: facility.id, sku: freshSku(), name: 'Colour', colour: 'red' }, 'colour']
      ]
      for (const [body, field] of cases) {
        const res = await k.post('/inventory-variants', body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(fieldsOf(res.body), [field], JSON.stringify(res.body))
      }
      assert.equal(
        (await k.get(`/inventory-variants?sku=${String(cases[2][0].sku)}`)).body.total,
        0,
        'a refused first stock leaves no variant behind'
      )
    })

    it('lets members read, refuses their changes (403), and hides variants from strangers (404) and anonymous callers (401)', async () => {
      const variant = await createVariant(server.url, facility.keeper.token, facility.id)
      assert.equal((await api(facility.member.token).get(`/inventory-variants/${variant.id}`)).status, 200)
      assert.equal(
        (
          await api(facility.member.token).post('/inventory-variants', {
            facility: facility.id,
            sku: freshSku(),
            name: 'x'
          })
        ).status,
        403
      )
      assert.equal(
        (await api(facility.member.token).patch(`/inventory-variants/${variant.id}`, { name: 'x' })).status,
        403
      )
      assert.equal((await api(facility.member.token).delete(`/inventory-variants/${variant.id}`)).status, 403)
      for (const call of [
        api(facility.stranger.token).get(`/inventory-variants/${variant.id}`),
        api(facility.stranger.token).patch(`/inventory-variants/${variant.id}`, { name: 'x' }),
        api(facility.stranger.token).delete(`/inventory-variants/${variant.id}`),
        api(facility.stranger.token).post('/inventory-variants', {
          facility: facility.id,
          sku: freshSku(),
          name: 'x'
        })
      ])
        assert.equal((await call).status, 404)
      assert.equal((await api().get(`/inventory-variants/${variant.id}`)).status, 401)
      const theirs = await api(facility.stranger.token).get('/inventory-variants')
      assert.ok(theirs.body.data.every((v: any) => v.facility === facility.strangerFacility))
      const changed = await api(facility.keeper.token).patch(`/inventory-variants/${variant.id}`, {
        name: 'Paracetamol 1 g',
        reorderLevel: 50
      })
      assert.equal(changed.status, 200)
      assert.equal(changed.body.name, 'Paracetamol 1 g')
      const sku = await api(facility.keeper.token).patch(`/inventory-variants/${variant.id}`, { sku: 'NEW' })
      assert.equal(sku.status, 400)
      assert.deepEqual(fieldsOf(sku.body), ['sku'])
    })

    it('removes a variant that was never stocked, and refuses (409) to remove a stocked one', async () => {
      const unused = await createVariant(server.url, facility.keeper.token, facility.id)
      assert.equal((await api(facility.keeper.token).delete(`/inventory-variants/${unused.id}`)).status, 200)
      assert.equal((await api(facility.keeper.token).get(`/inventory-variants/${unused.id}`)).status, 404)
      const { variant } = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 0)
      const refused = await api(facility.keeper.token).delete(`/inventory-variants/${variant.id}`)
      assert.equal(refused.status, 409)
      assert.match(refused.body.message, /archive it/)
    })

    it('archives a variant: hidden from lists unless asked for, its stocks closed to movements; restoring reopens them', async () => {
      const { variant, stock } = await stockedVariant(
        server.url,
        facility.keeper.token,
        facility.id,
        room.id,
        4
      )
      const k = api(facility.keeper.token)
      const archived = await k.patch(`/inventory-variants/${variant.id}`, { archive: true })
      assert.equal(archived.status, 200)
      assert.equal(archived.body.archived, true)
      assert.equal(archived.body.archivedBy, facility.keeper.account.id)
      assert.equal((await k.get(`/inventory-variants?sku=${variant.sku}`)).body.total, 0)
      assert.equal((await k.get(`/inventory-variants?sku=${variant.sku}&archived=true`)).body.total, 1)
      assert.equal((await k.get(`/inventory-variants/${variant.id}`)).status, 200)
      assert.equal((await k.get(`/inventory-stocks/${stock.id}`)).body.closed, true)
      const moved = await k.patch(`/inventory-stocks/${stock.id}`, { adjust: -1, reason: 'dispensed' })
      assert.equal(moved.status, 409)
      assert.match(moved.body.message, /closed/)
      const more = await k.post('/inventory-stocks', {
        facility: facility.id,
        variant: variant.sku,
        stockroom: room.id,
        lot: 'B2'
      })
      assert.equal(more.status, 400)
      assert.deepEqual(fieldsOf(more.body), ['variant'])
      assert.equal(
        (await k.patch(`/inventory-variants/${variant.id}`, { archive: false })).body.archived,
        false
      )
      assert.equal(
        (await k.patch(`/inventory-stocks/${stock.id}`, { adjust: -1, reason: 'dispensed' })).body.quantity,
        3
      )
    })
  })

  describe('stocks and movements', () => {
    it('creates one stock per (variant, stockroom, lot): a second one is a 409, another lot is a new stock', async () => {
      const variant = await createVariant(server.url, facility.keeper.token, facility.id)
      const k = api(facility.keeper.token)
      const body = {
        facility: facility.id,
        variant: variant.sku,
        stockroom: room.id,
        lot: 'A1',
        quantity: 12,
        expiresAt: 1893456000000,
        reorderLevel: 3
      }
      const first = await k.post('/inventory-stocks', body)
      assert.equal(first.status, 201, JSON.stringify(first.body))
      assert.deepEqual([first.body.quantity, first.body.lot, first.body.variant], [12, 'A1', variant.sku])
      const again = await k.post('/inventory-stocks', body)
      assert.equal(again.status, 409)
      assert.equal(again.body.data.stock, first.body.id)
      assert.equal((await k.post('/inventory-stocks', { ...body, lot: 'A2' })).status, 201)
      const noLot = { facility: facility.id, variant: variant.sku, stockroom: room.id }
      assert.equal((await k.post('/inventory-stocks', noLot)).status, 201)
      assert.equal((await k.post('/inventory-stocks', noLot)).status, 409)
    })

    it('refuses stocks of unknown skus or stockrooms (400 naming them), members (403), strangers (404) and anonymous callers (401)', async () => {
      const variant = await createVariant(server.url, facility.keeper.token, facility.id)
      const k = api(facility.keeper.token)
      const sku = await k.post('/inventory-stocks', {
        facility: facility.id,
        variant: 'NOPE',
        stockroom: room.id
      })
      assert.equal(sku.status, 400)
      assert.deepEqual(fieldsOf(sku.body), ['variant'])
      const where = await k.post('/inventory-stocks', {
        facility: facility.id,
        variant: variant.sku,
        stockroom: 'nope'
      })
      assert.equal(where.status, 400)
      assert.deepEqual(fieldsOf(where.body), ['stockroom'])
      const body = { facility: facility.id, variant: variant.sku, stockroom: room.id }
      assert.equal((await api(facility.member.token).post('/inventory-stocks', body)).status, 403)
      assert.equal((await api(facility.stranger.token).post('/inventory-stocks', body)).status, 404)
      assert.equal((await api().post('/inventory-stocks', body)).status, 401)
    })

    it('moves stock with adjust + reason and with $inc, and answers 409 naming what is available when short', async () => {
      const { stock } = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 10)
      const k = api(facility.keeper.token)
      const received = await k.patch(`/inventory-stocks/${stock.id}`, { adjust: 5, reason: 'delivery 42' })
      assert.equal(received.status, 200)
      assert.equal(received.body.quantity, 15)
      const used = await k.patch(`/inventory-stocks/${stock.id}`, { $inc: { quantity: -4 } })
      assert.equal(used.status, 200)
      assert.equal(used.body.quantity, 11)
      const short = await k.patch(`/inventory-stocks/${stock.id}`, { adjust: -12, reason: 'dispensed' })
      assert.equal(short.status, 409)
      assert.match(short.body.message, /only 11 available/)
      assert.equal(short.body.data.available, 11)
      const ledger = (
        await api(facility.member.token).get(
          `/inventory-stock-movements?stock=${stock.id}&$sort[createdAt]=1`
        )
      ).body.data
      assert.deepEqual(
        ledger.map((m: any) => [m.delta, m.reason]),
        [
          [10, 'initial stock'],
          [5, 'delivery 42'],
          [-4, 'stock withdrawn']
        ]
      )
      assert.equal(
        ledger.reduce((sum: number, m: any) => sum + m.delta, 0),
        11
      )
    })

    it('refuses malformed movements (400 naming the field), members (403) and strangers (404)', async () => {
      const { stock } = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 3)
      const k = api(facility.keeper.token)
      const cases: [Record<string, unknown>, string][] = [
        [{ adjust: 0, reason: 'nothing' }, 'adjust'],
        [{ adjust: 1.5 }, 'adjust'],
        [{ adjust: 'ten' }, 'adjust'],
        [{ quantity: 100 }, 'quantity'],
        [{ $inc: { quantity: 1, reorderLevel: 2 } }, '$inc'],
        [{ $inc: { quantity: 0 } }, '$inc.quantity'],
        [{ adjust: 1, reorderLevel: 4 }, 'reorderLevel'],
        [{ reason: 'no amount' }, 'reason'],
        [{ $set: { quantity: 100 } }, '$set']
      ]
      for (const [body, field] of cases) {
        const res = await k.patch(`/inventory-stocks/${stock.id}`, body)
        assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.status}`)
        assert.deepEqual(fieldsOf(res.body), [field], JSON.stringify(res.body))
      }
      assert.equal(
        (await api(facility.member.token).patch(`/inventory-stocks/${stock.id}`, { adjust: -1 })).status,
        403
      )
      assert.equal(
        (await api(facility.stranger.token).patch(`/inventory-stocks/${stock.id}`, { adjust: -1 })).status,
        404
      )
      assert.equal((await api(facility.stranger.token).get(`/inventory-stocks/${stock.id}`)).status, 404)
      assert.equal((await k.get(`/inventory-stocks/${stock.id}`)).body.quantity, 3)
      assert.equal((await k.delete(`/inventory-stocks/${stock.id}`)).status, 405)
    })

    it('keeps a stock within its largest quantity: $inc past ±1e9 is a 400 naming $inc.quantity, a receipt past 1e9 a 409, nothing moves', async () => {
      const { stock } = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 10)
      const k = api(facility.keeper.token)
      for (const quantity of [1e15, -1e15, 1e9 + 1]) {
        const res = await k.patch(`/inventory-stocks/${stock.id}`, { $inc: { quantity } })
        assert.equal(res.status, 400, `${quantity} → ${res.status}`)
        assert.deepEqual(fieldsOf(res.body), ['$inc.quantity'])
      }
      const over = await k.patch(`/inventory-stocks/${stock.id}`, { adjust: 1e9, reason: 'typo' })
      assert.equal(over.status, 409)
      assert.deepEqual([over.body.data.quantity, over.body.data.maximum], [10, 1e9])
      assert.match(over.body.message, /at most 1000000000/)
      const also = await k.patch(`/inventory-stocks/${stock.id}`, { $inc: { quantity: 1e9 - 9 } })
      assert.equal(also.status, 409)
      assert.equal((await k.get(`/inventory-stocks/${stock.id}`)).body.quantity, 10)
      assert.equal(
        (await k.patch(`/inventory-stocks/${stock.id}`, { $inc: { quantity: 1e9 - 10 } })).body.quantity,
        1e9
      )
      const ledger = (await k.get(`/inventory-stock-movements?stock=${stock.id}`)).body.data
      assert.deepEqual(
        ledger.map((m: any) => m.delta).sort((a: number, b: number) => a - b),
        [10, 1e9 - 10]
      )
    })

    it('refuses server-owned fields in stock and variant bodies (quantity, closed, pending, archived, stocked, facility) with a 400 naming each', async () => {
      const { variant, stock } = await stockedVariant(
        server.url,
        facility.keeper.token,
        facility.id,
        room.id,
        3
      )
      const k = api(facility.keeper.token)
      const cases: [string, string, Record<string, unknown>, string][] = [
        ['PATCH', `/inventory-stocks/${stock.id}`, { closed: true }, 'closed'],
        ['PATCH', `/inventory-stocks/${stock.id}`, { facility: facility.strangerFacility }, 'facility'],
        ['PATCH', `/inventory-stocks/${stock.id}`, { variant: 'OTHER' }, 'variant'],
        [
          'POST',
          '/inventory-stocks',
          { facility: facility.id, variant: variant.sku, stockroom: room.id, lot: 'Z', pending: [] },
          'pending'
        ],
        [
          'POST',
          '/inventory-stocks',
          { facility: facility.id, variant: variant.sku, stockroom: room.id, lot: 'Z', closed: false },
          'closed'
        ],
        ['PATCH', `/inventory-variants/${variant.id}`, { archived: true }, 'archived'],
        ['PATCH', `/inventory-variants/${variant.id}`, { stocked: false }, 'stocked'],
        ['PATCH', `/inventory-variants/${variant.id}`, { facility: facility.strangerFacility }, 'facility'],
        [
          'POST',
          '/inventory-variants',
          { facility: facility.id, sku: freshSku(), name: 'x', ordered: false },
          'ordered'
        ],
        ['POST', '/inventory-stockrooms', { facility: facility.id, name: 'x', stocked: false }, 'stocked']
      ]
      for (const [method, path, body, field] of cases) {
        const res = method === 'POST' ? await k.post(path, body) : await k.patch(path, body)
        assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)} → ${res.status}`)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
      assert.equal((await k.get(`/inventory-stocks/${stock.id}`)).body.quantity, 3)
    })

    it("refuses another facility's stockroom or sku in a body (400 naming it) and shows none of its stocks through $populateStocks", async () => {
      const theirRoom = await createStockroom(
        server.url,
        facility.stranger.token,
        facility.strangerFacility,
        'Their room'
      )
      const theirs = await stockedVariant(
        server.url,
        facility.stranger.token,
        facility.strangerFacility,
        theirRoom.id,
        5
      )
      const mine = await createVariant(server.url, facility.keeper.token, facility.id)
      const k = api(facility.keeper.token)
      const cases: [string, Record<string, unknown>, string][] = [
        [
          '/inventory-variants',
          { facility: facility.id, sku: freshSku(), name: 'x', initialStock: 1, stockroom: theirRoom.id },
          'stockroom'
        ],
        [
          '/inventory-stocks',
          { facility: facility.id, variant: mine.sku, stockroom: theirRoom.id },
          'stockroom'
        ],
        [
          '/inventory-stocks',
          { facility: facility.id, variant: theirs.variant.sku, stockroom: room.id },
          'variant'
        ]
      ]
      for (const [path, body, field] of cases) {
        const res = await k.post(path, body)
        assert.equal(res.status, 400, `${path} ${JSON.stringify(body)} → ${res.status}`)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
      const populated = await k.get(
        `/inventory-variants?$populateStocks[stockroom]=${theirRoom.id}&$limit=100`
      )
      assert.equal(populated.status, 200)
      assert.ok(populated.body.data.every((v: any) => v.facility === facility.id && v.$stocks.length === 0))
      assert.equal(
        (await api(facility.stranger.token).get(`/inventory-stocks/${theirs.stock.id}`)).body.quantity,
        5
      )
    })

    it('keeps the movement ledger read-only (405) and private to the facility', async () => {
      const { stock } = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 2)
      const [movement] = (
        await api(facility.member.token).get(`/inventory-stock-movements?stock=${stock.id}`)
      ).body.data
      assert.equal(movement.status, 'applied')
      assert.equal(
        (await api(facility.keeper.token).post('/inventory-stock-movements', { stock: stock.id, delta: 5 }))
          .status,
        405
      )
      assert.equal(
        (await api(facility.keeper.token).patch(`/inventory-stock-movements/${movement.id}`, { delta: 5 }))
          .status,
        405
      )
      assert.equal(
        (await api(facility.keeper.token).delete(`/inventory-stock-movements/${movement.id}`)).status,
        405
      )
      assert.equal(
        (await api(facility.stranger.token).get(`/inventory-stock-movements/${movement.id}`)).status,
        404
      )
      assert.equal(
        (await api(facility.stranger.token).get(`/inventory-stock-movements?stock=${stock.id}`)).body.total,
        0
      )
    })

    it('lets 50 concurrent withdrawals against a stock of 20 leave exactly 0: 20 succeed, 30 are 409, and the movements add up', async () => {
      const { stock } = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 20)
      const socket = socketClient(server.url)
      await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.keeper.token })
      try {
        // Half over REST, half over Socket.IO, all at once.
        const outcomes = await Promise.all(
          Array.from({ length: 50 }, async (_, i) => {
            if (i % 2 === 0)
              return (
                await api(facility.keeper.token).patch(`/inventory-stocks/${stock.id}`, {
                  adjust: -1,
                  reason: `dose ${i}`
                })
              ).status
            try {
              await socket.client.service('inventory-stocks').patch(stock.id, { $inc: { quantity: -1 } })
              return 200
            } catch (error: any) {
              return error.code
            }
          })
        )
        assert.equal(outcomes.filter((s) => s === 200).length, 20)
        assert.equal(outcomes.filter((s) => s === 409).length, 30)
        assert.equal((await api(facility.keeper.token).get(`/inventory-stocks/${stock.id}`)).body.quantity, 0)
        const ledger = (
          await api(facility.keeper.token).get(`/inventory-stock-movements?stock=${stock.id}&$limit=100`)
        ).body
        assert.equal(ledger.total, 21)
        assert.equal(
          ledger.data.reduce((sum: number, m: any) => sum + m.delta, 0),
          0
        )
        assert.deepEqual(
          ledger.data.map((m: any) => m.quantity).sort((a: number, b: number) => a - b),
          Array.from({ length: 21 }, (_, i) => i)
        )
      } finally {
        socket.close()
      }
    })

    it('announces stock changes and movements to the facility members over Socket.IO, and nothing to strangers', async () => {
      const { stock } = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 5)
      const member = socketClient(server.url)
      const stranger = socketClient(server.url)
      await member.client.authenticate({ strategy: 'jwt', accessToken: facility.member.token })
      await stranger.client.authenticate({ strategy: 'jwt', accessToken: facility.stranger.token })
      try {
        const seen = {
          stocks: recordEvents(member.client, 'inventory-stocks'),
          movements: recordEvents(member.client, 'inventory-stock-movements')
        }
        const unseen = [
          recordEvents(stranger.client, 'inventory-stocks'),
          recordEvents(stranger.client, 'inventory-stock-movements')
        ]
        await api(facility.keeper.token).patch(`/inventory-stocks/${stock.id}`, {
          adjust: -2,
          reason: 'ward round'
        })
        await waitUntil(
          () => seen.stocks.length >= 1 && seen.movements.length >= 1,
          5000,
          'the member receives both events'
        )
        assert.equal(seen.stocks[0].data.quantity, 3)
        assert.equal(seen.stocks[0].data.pending, undefined)
        assert.equal(seen.movements[0].data.delta, -2)
        // A later event the stranger may see (their own) proves their connection would have received ours by now.
        const own = await createStockroom(
          server.url,
          facility.stranger.token,
          facility.strangerFacility,
          'Theirs'
        )
        await stockedVariant(server.url, facility.stranger.token, facility.strangerFacility, own.id, 1)
        await waitUntil(() => unseen[1].length >= 1, 5000, 'the stranger receives their own movement')
        assert.ok(unseen.flat().every((event) => event.data.facility === facility.strangerFacility))
      } finally {
        member.close()
        stranger.close()
      }
    })
  })
  describe('over Socket.IO', () => {
    let keeper: ReturnType<typeof socketClient>
    let member: ReturnType<typeof socketClient>
    let stranger: ReturnType<typeof socketClient>
    before(async () => {
      keeper = socketClient(server.url)
      member = socketClient(server.url)
      stranger = socketClient(server.url)
      await keeper.client.authenticate({ strategy: 'jwt', accessToken: facility.keeper.token })
      await member.client.authenticate({ strategy: 'jwt', accessToken: facility.member.token })
      await stranger.client.authenticate({ strategy: 'jwt', accessToken: facility.stranger.token })
    })
    after(() => {
      for (const socket of [keeper, member, stranger]) socket.close()
    })
    const one = <T>(result: T | T[]): T => {
      assert.ok(!Array.isArray(result))
      return result
    }

    it('creates, reads, changes and removes stockrooms, variants and stocks with the privilege; members read (403 on changes), strangers get 404', async () => {
      const rooms = keeper.client.service('inventory-stockrooms')
      const variants = keeper.client.service('inventory-variants')
      const stocks = keeper.client.service('inventory-stocks')
      const room2 = await rooms.create({ facility: facility.id, name: 'Socket room' })
      assert.equal(one(await rooms.patch(room2.id, { description: 'Top shelf' })).description, 'Top shelf')
      const sku = freshSku('SOCK')
      const variant = await variants.create({
        facility: facility.id,
        sku,
        name: 'Syringe 5 ml',
        initialStock: 8,
        stockroom: room2.id
      })
      const stock = variant.$stocks?.[0]
      assert.ok(stock)
      assert.equal(stock.quantity, 8)
      assert.equal(one(await stocks.patch(stock.id, { adjust: -3, reason: 'ward round' })).quantity, 5)
      assert.equal((await member.client.service('inventory-stocks').get(stock.id)).quantity, 5)
      assert.equal((await member.client.service('inventory-variants').get(variant.id)).sku, sku)
      for (const call of [
        member.client.service('inventory-stockrooms').create({ facility: facility.id, name: 'x' }),
        member.client.service('inventory-variants').patch(variant.id, { name: 'x' }),
        member.client.service('inventory-stocks').patch(stock.id, { adjust: -1 }),
        member.client.service('inventory-stockrooms').remove(room2.id)
      ])
        assert.equal((await refusal(call)).code, 403)
      for (const call of [
        stranger.client.service('inventory-stockrooms').get(room2.id),
        stranger.client.service('inventory-variants').get(variant.id),
        stranger.client.service('inventory-stocks').patch(stock.id, { adjust: -1 }),
        stranger.client
          .service('inventory-variants')
          .create({ facility: facility.id, sku: freshSku(), name: 'x' })
      ])
        assert.equal((await refusal(call)).code, 404)
      const spare = await variants.create({ facility: facility.id, sku: freshSku(), name: 'Never stocked' })
      assert.equal(one(await variants.remove(spare.id)).id, spare.id)
      const empty = await rooms.create({ facility: facility.id, name: 'Empty' })
      assert.equal(one(await rooms.remove(empty.id)).id, empty.id)
      assert.equal((await refusal(rooms.remove(room2.id))).code, 409)
      assert.equal((await keeper.client.service('inventory-stocks').get(stock.id)).quantity, 5)
    })

    it('answers bad bodies with a 400 naming the field and a short withdrawal with a 409 naming what is available', async () => {
      const { stock } = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 2)
      // Raw socket calls: bodies the typed client would refuse to compile.
      const cases: [string, string, unknown[], string][] = [
        ['create', 'inventory-stockrooms', [{ facility: facility.id }, {}], 'name'],
        ['create', 'inventory-variants', [{ facility: facility.id, name: 'No sku' }, {}], 'sku'],
        [
          'create',
          'inventory-stocks',
          [{ facility: facility.id, variant: 'NOPE', stockroom: room.id }, {}],
          'variant'
        ],
        ['patch', 'inventory-stocks', [stock.id, { quantity: 100 }, {}], 'quantity'],
        ['patch', 'inventory-stocks', [stock.id, { $inc: { quantity: 0 } }, {}], '$inc.quantity']
      ]
      for (const [method, path, args, field] of cases) {
        const { error } = await rawEmit(keeper.socket, method, path, args)
        assert.equal(error?.code, 400, `${method} ${path} ${JSON.stringify(args)}`)
        assert.deepEqual(fieldsOf(error), [field])
      }
      const short = await refusal(
        keeper.client.service('inventory-stocks').patch(stock.id, { $inc: { quantity: -3 } })
      )
      assert.equal(short.code, 409)
      assert.equal(short.data.available, 2)
    })
  })
})
