// Recovery of inventory leftovers that only a crash can produce, set up directly in the store (as a dead process
// would have left them) and resolved by the same passes the server runs at startup.
import assert from 'node:assert/strict'
import { restClient, signUp, type TestServer } from '../helpers/app'
import {
  createStockroom,
  startInventoryServer,
  stockedVariant,
  type InventoryFixture
} from '../helpers/inventory'
import { applyMovement, recoverStockMovements } from '../../src/inventory/movements'
import { recoverDispatches } from '../../src/orders/dispatch'
import { depsSlot } from '../../src/deps'

describe('inventory recovery pass', () => {
  let server: TestServer
  let facility: InventoryFixture
  let room: any
  const store = (name: string) => server.app.service(name as any) as any // `any`: the internal store methods are untyped
  const quantityOf = async (id: string) =>
    (await restClient(server.url, facility.keeper.token).get(`/inventory-stocks/${id}`)).body.quantity
  // `as any[]`: JSON answers are untyped.
  const ledgerSum = async (stock: string) =>
    (
      (
        await restClient(server.url, facility.keeper.token).get(
          `/inventory-stock-movements?stock=${stock}&$limit=100`
        )
      ).body.data as any[]
    ).reduce((sum, m) => sum + m.delta, 0)

  before(async () => {
    ;({ server, facility } = await startInventoryServer())
    room = await createStockroom(server.url, facility.keeper.token, facility.id)
  })
  after(() => server.close())

  it('applies a pending movement that reached its stock, drops one that did not, and gives back an unrecorded one', async () => {
    const { stock } = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 10)
    const base = {
      facility: facility.id,
      stock: stock.id,
      variant: stock.variant,
      stockroom: room.id,
      reason: 'crash',
      status: 'pending',
      createdAt: 1,
      createdBy: null
    }
    // Reached the stock, not yet marked applied.
    const reached = await store('inventory-stock-movements')._create({ ...base, delta: -2 })
    await store('inventory-stocks')._patch(stock.id, {
      $inc: { quantity: -2 },
      $push: { pending: { key: reached.id, delta: -2, at: 1 } }
    })
    // Inserted, never applied.
    const lost = await store('inventory-stock-movements')._create({ ...base, delta: -5 })
    // Applied to the stock, its record gone.
    await store('inventory-stocks')._patch(stock.id, {
      $inc: { quantity: 3 },
      $push: { pending: { key: 'vanished', delta: 3, at: 1 } }
    })
    assert.equal(
      (await restClient(server.url, facility.keeper.token).get(`/inventory-stock-movements/${reached.id}`))
        .status,
      404,
      'pending movements are invisible'
    )

    await recoverStockMovements(depsSlot.require(server.app), Date.now() + 1)
    assert.equal((await store('inventory-stock-movements')._get(reached.id)).status, 'applied')
    await assert.rejects(store('inventory-stock-movements')._get(lost.id), { code: 404 })
    assert.equal(await quantityOf(stock.id), 8)
    assert.deepEqual((await store('inventory-stocks')._get(stock.id)).pending, [])
    assert.equal(await ledgerSum(stock.id), 8)
  })

  it('takes back an interrupted dispatch: the stock returns, the order is ready again and can be dispatched', async () => {
    const { variant, stock } = await stockedVariant(
      server.url,
      facility.keeper.token,
      facility.id,
      room.id,
      6
    )
    const patient = await signUp(server.url)
    const api = restClient(server.url, facility.member.token)
    const created = await api.post('/request/orders', {
      owner: { organization: facility.id },
      requestedForType: 'patient',
      requestedFor: patient.account.id,
      items: [{ refType: 'inventory-variant', ref: variant.sku, quantity: 4 }]
    })
    const order = created.body
    for (const status of ['preparing', 'ready'])
      assert.equal((await api.patch(`/request/orders/${order.id}`, { changeStatus: status })).status, 200)
    // What a process that died during step 3 of the dispatch leaves: the claim and one movement of it.
    const at = 5
    await store('request/orders')._patch(order.id, { dispatching: { stockroom: room.id, at, by: null } })
    await applyMovement(depsSlot.require(server.app), stock.id, {
      delta: -4,
      reason: `order ${order.id} dispatched`,
      by: null,
      order: order.id,
      dispatch: at
    })
    assert.equal(await quantityOf(stock.id), 2)
    assert.equal(
      (await api.patch(`/request/orders/${order.id}`, { changeStatus: 'cancelled' })).status,
      409,
      'no move while a dispatch is under way'
    )

    assert.equal(await recoverDispatches(depsSlot.require(server.app), Date.now() + 1), 1)
    assert.equal(await quantityOf(stock.id), 6)
    assert.equal(await ledgerSum(stock.id), 6)
    assert.equal(
      await recoverDispatches(depsSlot.require(server.app), Date.now() + 1),
      0,
      'nothing is taken back twice'
    )
    const dispatched = await api.patch(`/request/orders/${order.id}`, {
      changeStatus: 'dispatched',
      stockroom: room.id
    })
    assert.equal(dispatched.status, 200, JSON.stringify(dispatched.body))
    assert.equal(await quantityOf(stock.id), 2)
  })
})
