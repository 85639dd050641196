// Request orders over HTTP and Socket.IO: who may order, items filled from what they reference, the status
// machine, item confirmations, and the patient an order is for reading it.
import assert from 'node:assert/strict'
import {
  recordEvents,
  refusal,
  restClient,
  signUp,
  socketClient,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../../helpers/app'
import { fieldsOf } from '../../helpers/billing'
import {
  createStockroom,
  createVariant,
  startInventoryServer,
  stockedVariant,
  type InventoryFixture
} from '../../helpers/inventory'
import { rawEmit } from '../../helpers/tenants'
import type {
  Order,
  RequestOrderData,
  RequestOrderPatch
} from '../../../src/services/request-orders/request-orders.shared'

describe('request orders', function () {
  this.timeout(60000)
  let server: TestServer
  let facility: InventoryFixture
  let patient: SignedUp
  let variant: any
  let service: any
  let theirService: any
  const api = (token?: string) => restClient(server.url, token)

  before(async () => {
    ;({ server, facility } = await startInventoryServer())
    patient = await signUp(server.url)
    variant = await createVariant(server.url, facility.keeper.token, facility.id, {
      name: 'Gauze swab 10x10',
      unit: 'pack',
      price: 1.5
    })
    const created = await api(facility.owner.token).post('/services', {
      facility: facility.id,
      name: 'Wound dressing',
      type: 'procedure',
      price: 12
    })
    assert.equal(created.status, 201)
    service = created.body
    theirService = (
      await api(facility.stranger.token).post('/services', {
        facility: facility.strangerFacility,
        name: 'Theirs',
        type: 'procedure',
        price: 1
      })
    ).body
  })
  after(() => server.close())

  const orderBody = (items: unknown[], extra: Record<string, unknown> = {}) => ({
    owner: { organization: facility.id },
    requestedForType: 'patient',
    requestedFor: patient.account.id,
    items,
    ...extra
  })
  const newOrder = async (
    items: unknown[] = [{ name: 'Saline 0.9% 500 ml' }, { name: 'Cannula', quantity: 2 }]
  ) => {
    const res = await api(facility.member.token).post('/request/orders', orderBody(items))
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body
  }
  const move = (token: string, id: string, status: unknown) =>
    api(token).patch(`/request/orders/${id}`, { changeStatus: status })

  describe('creating', () => {
    it('creates a pending order of name items for a patient, quantity defaulting to 1, each item with its own id', async () => {
      const order = await newOrder()
      assert.equal(order.status, 'pending')
      assert.deepEqual(order.owner, { organization: facility.id })
      assert.equal(order.requestedFor, patient.account.id)
      assert.deepEqual(
        order.items.map((i: any) => [i.name, i.quantity]),
        [
          ['Saline 0.9% 500 ml', 1],
          ['Cannula', 2]
        ]
      )
      assert.equal(new Set(order.items.map((i: any) => i.id)).size, 2)
      assert.equal(order.pendingBy, facility.member.account.id)
      assert.deepEqual(
        order.statusHistory.map((h: any) => [h.status, h.by]),
        [['pending', facility.member.account.id]]
      )
      assert.equal(order.rev, undefined)
      assert.equal(order.createdBy, facility.member.account.id)
    })

    it('fills an inventory-variant item from the facility variant (client name replaced) and a service item from the service', async () => {
      const order = await newOrder([
        { refType: 'inventory-variant', ref: variant.sku, name: 'whatever the client says', quantity: 3 },
        { refType: 'service', ref: service.id, name: 'also replaced' }
      ])
      const [swabs, dressing] = order.items
      assert.deepEqual(
        [swabs.name, swabs.unit, swabs.price, swabs.currency, swabs.quantity, swabs.refType, swabs.ref],
        ['Gauze swab 10x10', 'pack', 1.5, 'USD', 3, 'inventory-variant', variant.sku]
      )
      assert.deepEqual(
        [dressing.name, dressing.price, dressing.quantity, dressing.refType, dressing.ref],
        ['Wound dressing', 12, 1, 'service', service.id]
      )
    })

    it('orders for a ward or an organization of the configured list', async () => {
      const ward = await api(facility.member.token).post(
        '/request/orders',
        orderBody([{ name: 'Gloves' }], { requestedForType: 'ward', requestedFor: 'ward-3' })
      )
      assert.equal(ward.status, 201)
      const org = await api(facility.member.token).post(
        '/request/orders',
        orderBody([{ name: 'Gloves' }], { requestedForType: 'organization', requestedFor: facility.id })
      )
      assert.equal(org.status, 201)
    })

    it('answers each invalid item with a 400 naming its index and field', async () => {
      const cases: [unknown[], string][] = [
        [[{ refType: 'medicine', ref: 'x' }], 'items.0.refType'],
        [[{ name: 'ok' }, { refType: 'inventory-variant', ref: 'NO-SUCH-SKU' }], 'items.1.ref'],
        [[{ refType: 'service', ref: theirService.id }], 'items.0.ref'],
        [[{ refType: 'service', ref: 'not-an-id' }], 'items.0.ref'],
        [[{ name: 'ok' }, { name: 'Zero', quantity: 0 }], 'items.1.quantity'],
        [[{ name: 'Negative', quantity: -2 }], 'items.0.quantity'],
        [[{ name: 'Text', quantity: 'three' }], 'items.0.quantity'],
        [[{ quantity: 2 }], 'items.0.name'],
        [[{ refType: 'service' }], 'items.0.ref'],
        [[{ ref: variant.sku }], 'items.0.refType'],
        [[{ name: 'x', colour: 'red' }], 'items.0.colour'],
        // Server-priced lines are sold in whole units: 0.001 of a sku would cost 0.
        [[{ refType: 'inventory-variant', ref: variant.sku, quantity: 0.001 }], 'items.0.quantity'],
        [[{ name: 'ok' }, { refType: 'service', ref: service.id, quantity: 0.5 }], 'items.1.quantity']
      ]
      for (const [items, field] of cases) {
        const res = await api(facility.member.token).post('/request/orders', orderBody(items))
        assert.equal(res.status, 400, `${JSON.stringify(items)} → ${res.status}`)
        assert.deepEqual(fieldsOf(res.body), [field], JSON.stringify(res.body))
        assert.match(res.body.message, new RegExp(field.replace(/\./g, '\\.')))
      }
    })

    it('refuses an unknown requestedForType or patient (400), no items (400), a non-member (404) and no token (401)', async () => {
      const type = await api(facility.member.token).post(
        '/request/orders',
        orderBody([{ name: 'x' }], { requestedForType: 'pet' })
      )
      assert.equal(type.status, 400)
      assert.deepEqual(fieldsOf(type.body), ['requestedForType'])
      assert.match(type.body.message, /patient, ward, organization/)
      const who = await api(facility.member.token).post(
        '/request/orders',
        orderBody([{ name: 'x' }], { requestedFor: 'nobody' })
      )
      assert.equal(who.status, 400)
      assert.deepEqual(fieldsOf(who.body), ['requestedFor'])
      const empty = await api(facility.member.token).post('/request/orders', orderBody([]))
      assert.equal(empty.status, 400)
      assert.deepEqual(fieldsOf(empty.body), ['items'])
      assert.equal(
        (await api(facility.stranger.token).post('/request/orders', orderBody([{ name: 'x' }]))).status,
        404
      )
      assert.equal((await api(patient.token).post('/request/orders', orderBody([{ name: 'x' }]))).status, 404)
      assert.equal((await api().post('/request/orders', orderBody([{ name: 'x' }]))).status, 401)
    })

    it('refuses server-owned fields in bodies (status, statusHistory, stamps, item ids, prices, confirmations) with a 400 naming each', async () => {
      const creates: [Record<string, unknown>, string][] = [
        [orderBody([{ name: 'x' }], { status: 'completed' }), 'status'],
        [orderBody([{ name: 'x' }], { statusHistory: [] }), 'statusHistory'],
        [orderBody([{ name: 'x' }], { completedAt: 1 }), 'completedAt'],
        [orderBody([{ name: 'x', id: 'chosen' }]), 'items.0.id'],
        [orderBody([{ name: 'x', price: 0.01 }]), 'items.0.price'],
        [orderBody([{ refType: 'service', ref: service.id, confirmedAt: 1 }]), 'items.0.confirmedAt']
      ]
      for (const [body, field] of creates) {
        const res = await api(facility.member.token).post('/request/orders', body)
        assert.equal(res.status, 400, field)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
      const order = await newOrder()
      for (const [body, field] of [
        [{ status: 'completed' }, 'status'],
        [{ statusHistory: [] }, 'statusHistory'],
        [{ items: [] }, 'items'],
        [{ $push: { statusHistory: {} } }, '$push'],
        [{ owner: { organization: facility.strangerFacility } }, 'owner']
      ] as const) {
        const res = await api(facility.member.token).patch(`/request/orders/${order.id}`, body)
        assert.equal(res.status, 400, field)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
      const after = (await api(facility.member.token).get(`/request/orders/${order.id}`)).body
      assert.deepEqual([after.status, after.statusHistory.length, after.items.length], ['pending', 1, 2])
    })

    it('keeps an ordered variant: it can be archived but not removed (409)', async () => {
      const fresh = await createVariant(server.url, facility.keeper.token, facility.id)
      await newOrder([{ refType: 'inventory-variant', ref: fresh.sku }])
      const removed = await api(facility.keeper.token).delete(`/inventory-variants/${fresh.id}`)
      assert.equal(removed.status, 409)
      assert.match(removed.body.message, /ordered/)
      assert.equal(
        (await api(facility.keeper.token).patch(`/inventory-variants/${fresh.id}`, { archive: true })).status,
        200
      )
      const again = await api(facility.member.token).post(
        '/request/orders',
        orderBody([{ refType: 'inventory-variant', ref: fresh.sku }])
      )
      assert.equal(again.status, 400)
      assert.deepEqual(fieldsOf(again.body), ['items.0.ref'])
    })
  })

  describe('status', () => {
    it('moves pending → preparing → ready → dispatched → completed, stamping <status>At/By and statusHistory', async () => {
      const order = await newOrder()
      let current = order
      for (const status of ['preparing', 'ready', 'dispatched', 'completed']) {
        const res = await move(facility.member.token, order.id, status)
        assert.equal(res.status, 200, JSON.stringify(res.body))
        assert.equal(res.body.status, status)
        assert.equal(res.body[`${status}By`], facility.member.account.id)
        assert.ok(res.body[`${status}At`] >= current.updatedAt)
        current = res.body
      }
      assert.deepEqual(
        current.statusHistory.map((h: any) => h.status),
        ['pending', 'preparing', 'ready', 'dispatched', 'completed']
      )
      assert.ok(
        current.statusHistory.every(
          (h: any) => h.by === facility.member.account.id && typeof h.at === 'number'
        )
      )
    })

    it('cancels from every non-final status (pending, preparing, ready, dispatched)', async () => {
      const paths: string[][] = [
        [],
        ['preparing'],
        ['preparing', 'ready'],
        ['preparing', 'ready', 'dispatched']
      ]
      for (const before of paths) {
        const order = await newOrder()
        for (const status of before)
          assert.equal((await move(facility.owner.token, order.id, status)).status, 200)
        const cancelled = await move(facility.owner.token, order.id, 'cancelled')
        assert.equal(cancelled.status, 200, `cancel after ${before.join(' → ') || 'pending'}`)
        assert.equal(cancelled.body.cancelledBy, facility.owner.account.id)
      }
    })

    it('answers an illegal move with a 409 naming the current status and the allowed next ones', async () => {
      const order = await newOrder()
      const skip = await move(facility.member.token, order.id, 'ready')
      assert.equal(skip.status, 409)
      assert.match(skip.body.message, /is pending/)
      assert.match(skip.body.message, /allowed next: preparing, cancelled/)
      assert.deepEqual(skip.body.data.allowed, ['preparing', 'cancelled'])
      assert.equal(skip.body.data.status, 'pending')
      assert.equal((await move(facility.member.token, order.id, 'cancelled')).status, 200)
      const final = await move(facility.member.token, order.id, 'preparing')
      assert.equal(final.status, 409)
      assert.match(final.body.message, /is cancelled.*final/)
      assert.deepEqual(final.body.data.allowed, [])
    })

    it('answers an unknown status with a 400 naming changeStatus, and two operations in one PATCH with a 400', async () => {
      const order = await newOrder()
      for (const status of ['shipped', 7, '']) {
        const res = await move(facility.member.token, order.id, status)
        assert.equal(res.status, 400, String(status))
        assert.deepEqual(fieldsOf(res.body), ['changeStatus'])
      }
      const both = await api(facility.member.token).patch(`/request/orders/${order.id}`, {
        changeStatus: 'preparing',
        confirmItem: order.items[0].id
      })
      assert.equal(both.status, 400)
      assert.equal(
        (await api(facility.member.token).get(`/request/orders/${order.id}`)).body.status,
        'pending'
      )
    })

    it('lets exactly one of two concurrent identical moves win (the other is a 409)', async () => {
      const order = await newOrder()
      const results = await Promise.all([
        move(facility.member.token, order.id, 'preparing'),
        move(facility.owner.token, order.id, 'preparing')
      ])
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 409])
      const after = (await api(facility.member.token).get(`/request/orders/${order.id}`)).body
      assert.deepEqual(
        after.statusHistory.map((h: any) => h.status),
        ['pending', 'preparing']
      )
    })
  })

  describe('confirmItem', () => {
    it('marks one item confirmedAt/By; confirming every item leaves the order status as it is', async () => {
      const order = await newOrder()
      const first = await api(facility.member.token).patch(`/request/orders/${order.id}`, {
        confirmItem: order.items[0].id
      })
      assert.equal(first.status, 200)
      assert.equal(first.body.items[0].confirmedBy, facility.member.account.id)
      assert.equal(typeof first.body.items[0].confirmedAt, 'number')
      assert.equal(first.body.items[1].confirmedAt, undefined)
      const second = await api(facility.owner.token).patch(`/request/orders/${order.id}`, {
        confirmItem: order.items[1].id
      })
      assert.equal(second.body.items[1].confirmedBy, facility.owner.account.id)
      assert.equal(second.body.status, 'pending')
      const repeat = await api(facility.owner.token).patch(`/request/orders/${order.id}`, {
        confirmItem: order.items[0].id
      })
      assert.equal(repeat.status, 200)
      assert.equal(
        repeat.body.items[0].confirmedBy,
        facility.member.account.id,
        'the first confirmation stays'
      )
    })

    it('answers an unknown item id with a 400 and an item of a final order with a 409', async () => {
      const order = await newOrder()
      const unknown = await api(facility.member.token).patch(`/request/orders/${order.id}`, {
        confirmItem: 'no-such-item'
      })
      assert.equal(unknown.status, 400)
      assert.deepEqual(fieldsOf(unknown.body), ['confirmItem'])
      await move(facility.member.token, order.id, 'cancelled')
      const final = await api(facility.member.token).patch(`/request/orders/${order.id}`, {
        confirmItem: order.items[0].id
      })
      assert.equal(final.status, 409)
      assert.match(final.body.message, /cancelled/)
    })

    it('keeps both of two concurrent confirmations of different items', async () => {
      const order = await newOrder([{ name: 'a' }, { name: 'b' }, { name: 'c' }])
      const results = await Promise.all(
        order.items.map((item: any) =>
          api(facility.member.token).patch(`/request/orders/${order.id}`, { confirmItem: item.id })
        )
      )
      assert.deepEqual(
        results.map((r) => r.status),
        [200, 200, 200]
      )
      const after = (await api(facility.member.token).get(`/request/orders/${order.id}`)).body
      assert.ok(after.items.every((item: any) => typeof item.confirmedAt === 'number'))
    })
  })

  describe('reading', () => {
    it('lets the patient the order is for read it (REST and Socket.IO) but not change it (403); a stranger gets 404', async () => {
      const order = await newOrder()
      const mine = await api(patient.token).get(`/request/orders/${order.id}`)
      assert.equal(mine.status, 200)
      const list = await api(patient.token).get('/request/orders')
      assert.ok(list.body.data.some((o: any) => o.id === order.id))
      assert.ok(list.body.data.every((o: any) => o.requestedFor === patient.account.id))
      assert.equal((await move(patient.token, order.id, 'cancelled')).status, 403)
      const socket = socketClient(server.url)
      await socket.client.authenticate({ strategy: 'jwt', accessToken: patient.token })
      try {
        assert.equal((await socket.client.service('request/orders').get(order.id)).id, order.id)
      } finally {
        socket.close()
      }
      for (const call of [
        api(facility.stranger.token).get(`/request/orders/${order.id}`),
        move(facility.stranger.token, order.id, 'preparing')
      ]) {
        assert.equal((await call).status, 404)
      }
      assert.equal(
        (await api(facility.stranger.token).get(`/request/orders?requestedFor=${patient.account.id}`)).body
          .total,
        0
      )
      assert.equal((await api().get(`/request/orders/${order.id}`)).status, 401)
      assert.equal((await api(facility.member.token).delete(`/request/orders/${order.id}`)).status, 405)
    })

    it('announces changes to the facility members and to the patient over Socket.IO, and nothing to a stranger', async () => {
      const sockets = {
        member: socketClient(server.url),
        patient: socketClient(server.url),
        stranger: socketClient(server.url)
      }
      await sockets.member.client.authenticate({ strategy: 'jwt', accessToken: facility.member.token })
      await sockets.patient.client.authenticate({ strategy: 'jwt', accessToken: patient.token })
      await sockets.stranger.client.authenticate({ strategy: 'jwt', accessToken: facility.stranger.token })
      try {
        const events = {
          member: recordEvents(sockets.member.client, 'request/orders'),
          patient: recordEvents(sockets.patient.client, 'request/orders'),
          stranger: recordEvents(sockets.stranger.client, 'request/orders')
        }
        const order = await newOrder()
        await move(facility.member.token, order.id, 'preparing')
        await waitUntil(
          () => events.member.length >= 2 && events.patient.length >= 2,
          5000,
          'member and patient events'
        )
        assert.deepEqual(
          events.patient.map((e) => e.event),
          ['created', 'patched']
        )
        assert.equal(events.patient[1].data.status, 'preparing')
        // The stranger's own order proves their connection would have received ours by now.
        const theirs = await api(facility.stranger.token).post('/request/orders', {
          ...orderBody([{ name: 'x' }]),
          owner: { organization: facility.strangerFacility }
        })
        assert.equal(theirs.status, 201)
        await waitUntil(() => events.stranger.length >= 1, 5000, 'the stranger receives their own order')
        assert.deepEqual(
          events.stranger.map((e) => e.data.id),
          [theirs.body.id]
        )
      } finally {
        for (const socket of Object.values(sockets)) socket.close()
      }
    })
  })

  describe('over Socket.IO', () => {
    let socket: ReturnType<typeof socketClient>
    let strangerSocket: ReturnType<typeof socketClient>
    before(async () => {
      socket = socketClient(server.url)
      strangerSocket = socketClient(server.url)
      await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.member.token })
      await strangerSocket.client.authenticate({ strategy: 'jwt', accessToken: facility.stranger.token })
    })
    after(() => {
      socket.close()
      strangerSocket.close()
    })
    const orders = () => socket.client.service('request/orders')
    // A patch by id answers one order (the typed client also allows the multi form, which answers a list).
    const patchOne = async (id: string, data: RequestOrderPatch): Promise<Order> => {
      const result = await orders().patch(id, data)
      assert.ok(!Array.isArray(result))
      return result
    }
    const typedBody = (items: RequestOrderData['items']): RequestOrderData => ({
      owner: { organization: facility.id },
      requestedForType: 'patient',
      requestedFor: patient.account.id,
      items
    })

    it('creates an order of name and reference items, filling names from the documents and quantity 1 by default', async () => {
      const order = await orders().create(
        typedBody([
          { name: 'Saline 0.9% 500 ml' },
          { refType: 'inventory-variant', ref: variant.sku, name: 'replaced', quantity: 2 },
          { refType: 'service', ref: service.id, name: 'replaced too' }
        ])
      )
      assert.equal(order.status, 'pending')
      assert.deepEqual(
        order.items.map((i) => [i.name, i.quantity, i.refType ?? null]),
        [
          ['Saline 0.9% 500 ml', 1, null],
          ['Gauze swab 10x10', 2, 'inventory-variant'],
          ['Wound dressing', 1, 'service']
        ]
      )
      assert.equal(new Set(order.items.map((i) => i.id)).size, 3)
    })

    it('answers each invalid item with a 400 naming its index and field', async () => {
      const cases: [unknown[], string][] = [
        [[{ refType: 'medicine', ref: 'x' }], 'items.0.refType'],
        [[{ name: 'ok' }, { refType: 'inventory-variant', ref: 'NO-SUCH-SKU' }], 'items.1.ref'],
        [[{ refType: 'service', ref: theirService.id }], 'items.0.ref'],
        [[{ name: 'Zero', quantity: 0 }], 'items.0.quantity'],
        [[{ name: 'Text', quantity: 'three' }], 'items.0.quantity'],
        [[{ quantity: 2 }], 'items.0.name']
      ]
      for (const [items, field] of cases) {
        // Raw socket calls: bodies the typed client would refuse to compile.
        const { error } = await rawEmit(socket.socket, 'create', 'request/orders', [orderBody(items), {}])
        assert.equal(error?.code, 400, JSON.stringify(items))
        assert.deepEqual(fieldsOf(error), [field], JSON.stringify(error))
      }
    })

    it('moves through every status, refuses an illegal move (409 naming the allowed ones) and an unknown one (400)', async () => {
      const order = await orders().create(typedBody([{ name: 'Gloves' }]))
      const illegal = await refusal(orders().patch(order.id, { changeStatus: 'completed' }))
      assert.equal(illegal.code, 409)
      assert.deepEqual(illegal.data.allowed, ['preparing', 'cancelled'])
      assert.match(illegal.message, /is pending.*allowed next: preparing, cancelled/)
      const unknown = await refusal(orders().patch(order.id, { changeStatus: 'shipped' }))
      assert.equal(unknown.code, 400)
      assert.deepEqual(fieldsOf(unknown), ['changeStatus'])
      for (const status of ['preparing', 'ready', 'dispatched', 'completed'])
        assert.equal((await patchOne(order.id, { changeStatus: status })).status, status)
      const history = (await orders().get(order.id)).statusHistory.map((h) => h.status)
      assert.deepEqual(history, ['pending', 'preparing', 'ready', 'dispatched', 'completed'])
    })

    it('confirms an item, answers an unknown item id with a 400 naming confirmItem, and hides orders from a stranger (404)', async () => {
      const order = await orders().create(typedBody([{ name: 'a' }, { name: 'b' }]))
      const confirmed = await patchOne(order.id, { confirmItem: order.items[1].id })
      assert.equal(confirmed.items[1].confirmedBy, facility.member.account.id)
      assert.equal(confirmed.items[0].confirmedAt, undefined)
      const unknown = await refusal(orders().patch(order.id, { confirmItem: 'no-such-item' }))
      assert.equal(unknown.code, 400)
      assert.deepEqual(fieldsOf(unknown), ['confirmItem'])
      const theirs = strangerSocket.client.service('request/orders')
      assert.equal((await refusal(theirs.get(order.id))).code, 404)
      assert.equal((await refusal(theirs.patch(order.id, { confirmItem: order.items[0].id }))).code, 404)
      assert.equal((await theirs.find({ query: { id: order.id } })).total, 0)
    })
  })

  describe('dispatch from a stockroom', () => {
    let room: any
    const dispatch = (token: string, id: string, stockroom = room.id) =>
      api(token).patch(`/request/orders/${id}`, { changeStatus: 'dispatched', stockroom })
    const ready = async (items: unknown[]) => {
      const order = await newOrder(items)
      for (const status of ['preparing', 'ready'])
        assert.equal((await move(facility.member.token, order.id, status)).status, 200)
      return order
    }
    const quantityOf = async (stockId: string) =>
      (await api(facility.keeper.token).get(`/inventory-stocks/${stockId}`)).body.quantity
    // `as any[]`: JSON answers are untyped.
    const ledger = async (query: string) =>
      (await api(facility.keeper.token).get(`/inventory-stock-movements?${query}&$limit=100`)).body
        .data as any[]

    before(async () => {
      room = await createStockroom(server.url, facility.keeper.token, facility.id, 'Dispatch')
    })

    it('without a stockroom moves the order only: the stock stays as it was', async () => {
      const { variant: stocked, stock } = await stockedVariant(
        server.url,
        facility.keeper.token,
        facility.id,
        room.id,
        4
      )
      const order = await ready([{ refType: 'inventory-variant', ref: stocked.sku, quantity: 2 }])
      assert.equal((await move(facility.member.token, order.id, 'dispatched')).status, 200)
      assert.equal(await quantityOf(stock.id), 4)
    })

    it('with a stockroom consumes every inventory-variant item with one movement each, naming the order', async () => {
      const a = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 10)
      const b = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 5)
      const order = await ready([
        { refType: 'inventory-variant', ref: a.variant.sku, quantity: 3 },
        { name: 'Porter' },
        { refType: 'service', ref: service.id },
        { refType: 'inventory-variant', ref: b.variant.sku, quantity: 5 }
      ])
      const res = await dispatch(facility.member.token, order.id)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body.status, 'dispatched')
      assert.equal(res.body.dispatchedFrom, room.id)
      assert.equal(res.body.dispatching, undefined)
      assert.deepEqual(
        res.body.consumed.map((c: any) => [c.item, c.stock, c.quantity]),
        [
          [order.items[0].id, a.stock.id, 3],
          [order.items[3].id, b.stock.id, 5]
        ]
      )
      assert.deepEqual([await quantityOf(a.stock.id), await quantityOf(b.stock.id)], [7, 0])
      const movements = await ledger(`order=${order.id}`)
      assert.deepEqual(
        movements.map((m) => m.delta).sort((x, y) => x - y),
        [-5, -3]
      )
      assert.ok(movements.every((m) => m.reason === `order ${order.id} dispatched`))
    })

    it('takes the stock expiring first among the lots that hold enough (lots without expiry last)', async () => {
      const variant = await createVariant(server.url, facility.keeper.token, facility.id)
      const post = (lot: string, quantity: number, expiresAt: number) =>
        api(facility.keeper.token).post('/inventory-stocks', {
          facility: facility.id,
          variant: variant.sku,
          stockroom: room.id,
          lot,
          quantity,
          expiresAt
        })
      const late = (await post('LATE', 9, 2_000_000_000_000)).body
      const early = (await post('EARLY', 9, 1_900_000_000_000)).body
      const small = (await post('SMALL', 1, 1_800_000_000_000)).body
      const never = (
        await api(facility.keeper.token).post('/inventory-stocks', {
          facility: facility.id,
          variant: variant.sku,
          stockroom: room.id,
          lot: 'NONE',
          quantity: 9
        })
      ).body
      const order = await ready([{ refType: 'inventory-variant', ref: variant.sku, quantity: 4 }])
      assert.equal((await dispatch(facility.member.token, order.id)).status, 200)
      assert.deepEqual(
        [
          await quantityOf(small.id),
          await quantityOf(early.id),
          await quantityOf(late.id),
          await quantityOf(never.id)
        ],
        [1, 5, 9, 9]
      )
    })

    it('is all or nothing: a short item is a 409 naming it and what the stockroom holds, and no stock moves', async () => {
      const a = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 10)
      const b = await stockedVariant(server.url, facility.keeper.token, facility.id, room.id, 1)
      const order = await ready([
        { refType: 'inventory-variant', ref: a.variant.sku, quantity: 3 },
        { refType: 'inventory-variant', ref: b.variant.sku, quantity: 2 }
      ])
      const res = await dispatch(facility.member.token, order.id)
      assert.equal(res.status, 409)
      assert.match(
        res.body.message,
        new RegExp(`Item 1 \\(${b.variant.sku}\\) needs 2 but stockroom ${room.id} holds 1`)
      )
      assert.deepEqual([res.body.data.field, res.body.data.available], ['items.1', 1])
      assert.deepEqual([await quantityOf(a.stock.id), await quantityOf(b.stock.id)], [10, 1])
      const after = (await api(facility.member.token).get(`/request/orders/${order.id}`)).body
      assert.equal(after.status, 'ready')
      const movements = await ledger(`order=${order.id}`)
      assert.equal(
        movements.reduce((sum, m) => sum + m.delta, 0),
        0,
        'the take-back cancels the withdrawal in the ledger'
      )
      // Once stocked up, the same order dispatches.
      await api(facility.keeper.token).patch(`/inventory-stocks/${b.stock.id}`, {
        adjust: 1,
        reason: 'delivery'
      })
      assert.equal((await dispatch(facility.member.token, order.id)).status, 200)
      assert.deepEqual([await quantityOf(a.stock.id), await quantityOf(b.stock.id)], [7, 0])
    })

    it('refuses a stockroom of another facility or without dispatch (400 naming stockroom), a non-ready order (409), a whole-number-less variant quantity (400)', async () => {
      const order = await newOrder([{ name: 'x' }])
      const theirRoom = await createStockroom(
        server.url,
        facility.stranger.token,
        facility.strangerFacility,
        'Theirs'
      )
      const pending = await dispatch(facility.member.token, order.id)
      assert.equal(pending.status, 409)
      assert.match(pending.body.message, /is pending/)
      await move(facility.member.token, order.id, 'preparing')
      await move(facility.member.token, order.id, 'ready')
      const foreign = await dispatch(facility.member.token, order.id, theirRoom.id)
      assert.equal(foreign.status, 400)
      assert.deepEqual(fieldsOf(foreign.body), ['stockroom'])
      const wrongMove = await api(facility.member.token).patch(`/request/orders/${order.id}`, {
        changeStatus: 'cancelled',
        stockroom: room.id
      })
      assert.equal(wrongMove.status, 400)
      assert.deepEqual(fieldsOf(wrongMove.body), ['stockroom'])
      assert.equal((await dispatch(facility.stranger.token, order.id)).status, 404)
      assert.equal((await dispatch(patient.token, order.id)).status, 403)
      const half = await api(facility.member.token).post(
        '/request/orders',
        orderBody([{ refType: 'inventory-variant', ref: variant.sku, quantity: 1.5 }])
      )
      assert.equal(half.status, 400)
      assert.deepEqual(fieldsOf(half.body), ['items.0.quantity'])
    })

    it('lets 5 concurrent dispatches of 3 against a stock of 10 leave 1: 3 succeed, 2 are 409, and the movements add up', async () => {
      const { variant: stocked, stock } = await stockedVariant(
        server.url,
        facility.keeper.token,
        facility.id,
        room.id,
        10
      )
      const orders = []
      for (let i = 0; i < 5; i++)
        orders.push(
          await ready([{ name: 'Label' }, { refType: 'inventory-variant', ref: stocked.sku, quantity: 3 }])
        )
      const results = await Promise.all(orders.map((order) => dispatch(facility.member.token, order.id)))
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 409, 409])
      assert.equal(await quantityOf(stock.id), 1)
      const movements = await ledger(`stock=${stock.id}`)
      assert.equal(
        movements.reduce((sum, m) => sum + m.delta, 0),
        1
      )
      const statuses = await Promise.all(
        orders.map(
          async (order) => (await api(facility.member.token).get(`/request/orders/${order.id}`)).body.status
        )
      )
      assert.deepEqual(statuses.sort(), ['dispatched', 'dispatched', 'dispatched', 'ready', 'ready'])
    })
  })
})
