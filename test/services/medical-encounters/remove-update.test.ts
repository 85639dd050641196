// Encounters entered by mistake can be taken back (DELETE, with their draft invoice, items and payments) and
// replaced (PUT); subscribers see created, updated, patched and removed, over Socket.IO and webhooks alike.
import assert from 'node:assert/strict'
import {
  http,
  recordEvents,
  restClient,
  sleep,
  socketClient,
  waitUntil,
  type TestServer
} from '../../helpers/app'
import { fieldsOf, pay, startFacilityServer, type FacilityFixture } from '../../helpers/billing'
import { startWebhookReceiver, type TestWebhookReceiver } from '../../helpers/webhook-receiver'

describe('medical encounters: remove and update', () => {
  let server: TestServer
  let facility: FacilityFixture
  const store = (path: string) => server.app.service(path as any) as any

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
  })
  after(() => server.close())

  const newEncounter = async (body: Record<string, unknown> = {}, who: 'member' | 'biller' = 'member') => {
    const res = await http(server.url, 'POST', '/medical-encounters', {
      token: facility[who].token,
      body: {
        facility: facility.id,
        patient: facility.member.account.id,
        reason: 'Cough',
        notes: 'first note',
        ...body
      }
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body
  }

  describe('DELETE /medical-encounters/:id', () => {
    it('lets a member remove a draft encounter without invoice; it is then gone (404) and announced as removed', async () => {
      const watcher = socketClient(server.url)
      try {
        await watcher.client.authenticate({ strategy: 'jwt', accessToken: facility.owner.token })
        const events = recordEvents(watcher.client, 'medical-encounters')
        const encounter = await newEncounter()
        const removed = await restClient(server.url, facility.member.token).delete(
          `/medical-encounters/${encounter.id}`
        )
        assert.equal(removed.status, 200, JSON.stringify(removed.body))
        assert.equal(removed.body.id, encounter.id)
        assert.equal(removed.body.deleting, undefined, 'internal markers never leave the server')
        assert.equal(
          (await restClient(server.url, facility.member.token).get(`/medical-encounters/${encounter.id}`))
            .status,
          404
        )
        await waitUntil(
          () => events.some((e) => e.event === 'removed' && e.data.id === encounter.id),
          5000,
          'removed event'
        )
      } finally {
        watcher.close()
      }
    })

    it('removes an encounter with its draft invoice, items and payments for billing staff; a plain member gets 403', async () => {
      const encounter = await newEncounter({ invoice: true })
      const item = await restClient(server.url, facility.member.token).post('/billing-items', {
        invoice: encounter.invoice,
        type: 'custom',
        name: 'Visit',
        price: 30
      })
      assert.equal(item.status, 201)
      const payment = await pay(server.url, facility, item.body.id, 10)

      assert.equal(
        (await restClient(server.url, facility.member.token).delete(`/medical-encounters/${encounter.id}`))
          .status,
        403
      )
      assert.ok(await store('medical-encounters')._get(encounter.id))

      const removed = await restClient(server.url, facility.biller.token).delete(
        `/medical-encounters/${encounter.id}`
      )
      assert.equal(removed.status, 200, JSON.stringify(removed.body))
      const biller = restClient(server.url, facility.biller.token)
      assert.equal((await biller.get(`/medical-encounters/${encounter.id}`)).status, 404)
      assert.equal((await biller.get(`/billing-invoices/${encounter.invoice}`)).status, 404)
      assert.equal((await biller.get(`/billing-items/${item.body.id}`)).status, 404)
      assert.equal((await biller.get(`/billing-payments/${payment.id}`)).status, 404)
      assert.deepEqual(
        await store('billing-payments')._find({ paginate: false, query: { invoice: encounter.invoice } }),
        []
      )
    })

    it('refuses a finalized encounter (409) over REST and Socket.IO, keeping it and its invoice', async () => {
      const encounter = await newEncounter({ invoice: true })
      const finalized = await restClient(server.url, facility.biller.token).patch(
        `/medical-encounters/${encounter.id}`,
        { finalize: true }
      )
      assert.equal(finalized.status, 200)
      const rest = await restClient(server.url, facility.biller.token).delete(
        `/medical-encounters/${encounter.id}`
      )
      assert.equal(rest.status, 409)
      assert.match(rest.body.message, /finalized/)
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.biller.token })
        await assert.rejects(
          socket.client.service('medical-encounters').remove(encounter.id),
          (error: any) => error.code === 409
        )
      } finally {
        socket.close()
      }
      assert.equal((await store('medical-encounters')._get(encounter.id)).status, 'finalized')
      assert.ok(await store('billing-invoices')._get(encounter.invoice))
    })

    it('refuses a draft encounter whose invoice was finalized on its own (409), leaving both as they were', async () => {
      const encounter = await newEncounter({ invoice: true })
      assert.equal(
        (
          await restClient(server.url, facility.biller.token).patch(
            `/billing-invoices/${encounter.invoice}`,
            { finalize: true }
          )
        ).status,
        200
      )
      const res = await restClient(server.url, facility.biller.token).delete(
        `/medical-encounters/${encounter.id}`
      )
      assert.equal(res.status, 409)
      assert.match(res.body.message, /invoice/)
      const stored = await store('medical-encounters')._get(encounter.id)
      assert.deepEqual(
        [stored.status, stored.invoice, stored.deleting ?? false],
        ['draft', encounter.invoice, false]
      )
      assert.equal(
        (await restClient(server.url, facility.member.token).get(`/medical-encounters/${encounter.id}`))
          .status,
        200
      )
    })

    it('removes a draft encounter over Socket.IO with its invoice (billing staff), answering the removed encounter', async () => {
      const encounter = await newEncounter({ invoice: true })
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.biller.token })
        const removed = (await socket.client
          .service('medical-encounters')
          .remove(encounter.id)) as unknown as { id: string } // the untyped client's remove may be multi
        assert.equal(removed.id, encounter.id)
        await assert.rejects(
          socket.client.service('medical-encounters').get(encounter.id),
          (error: any) => error.code === 404
        )
        await assert.rejects(
          socket.client.service('billing-invoices').get(encounter.invoice),
          (error: any) => error.code === 404
        )
      } finally {
        socket.close()
      }
    })

    it('answers 404 to another facility and to a second removal, and 401 without a token', async () => {
      const encounter = await newEncounter()
      assert.equal(
        (await restClient(server.url, facility.stranger.token).delete(`/medical-encounters/${encounter.id}`))
          .status,
        404
      )
      assert.equal((await http(server.url, 'DELETE', `/medical-encounters/${encounter.id}`)).status, 401)
      assert.equal(
        (await restClient(server.url, facility.member.token).delete(`/medical-encounters/${encounter.id}`))
          .status,
        200
      )
      assert.equal(
        (await restClient(server.url, facility.member.token).delete(`/medical-encounters/${encounter.id}`))
          .status,
        404
      )
    })
  })

  describe('PUT /medical-encounters/:id', () => {
    it('replaces the client-owned fields of a draft encounter and keeps the server-owned ones (REST)', async () => {
      const encounter = await newEncounter({ invoice: true, provider: facility.biller.account.id })
      const res = await restClient(server.url, facility.member.token).put(
        `/medical-encounters/${encounter.id}`,
        {
          facility: facility.id,
          patient: facility.member.account.id,
          notes: 'replaced',
          endedAt: encounter.startedAt + 1000
        }
      )
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body.notes, 'replaced')
      assert.equal(res.body.endedAt, encounter.startedAt + 1000)
      assert.equal(res.body.reason, undefined, 'a field left out is removed')
      assert.equal(res.body.provider, undefined)
      assert.deepEqual(
        [res.body.invoice, res.body.status, res.body.startedAt, res.body.type, res.body.createdBy],
        [encounter.invoice, 'draft', encounter.startedAt, encounter.type, encounter.createdBy]
      )
    })

    it('answers 400 naming facility or patient when they would change, or a bad field, and changes nothing', async () => {
      const encounter = await newEncounter()
      const before = await store('medical-encounters')._get(encounter.id)
      const api = restClient(server.url, facility.member.token)
      const moved = await api.put(`/medical-encounters/${encounter.id}`, {
        facility: facility.strangerFacility,
        patient: 'someone-else'
      })
      assert.equal(moved.status, 400)
      assert.deepEqual(fieldsOf(moved.body).sort(), ['facility', 'patient'])
      const bad = await api.put(`/medical-encounters/${encounter.id}`, {
        facility: facility.id,
        patient: facility.member.account.id,
        status: 'finalized',
        invoice: true
      })
      assert.equal(bad.status, 400)
      assert.deepEqual(fieldsOf(bad.body).sort(), ['invoice', 'status'])
      assert.deepEqual(await store('medical-encounters')._get(encounter.id), before)
    })

    it('updates over Socket.IO too, with an `updated` event; a finalized encounter is a 409; another facility 404', async () => {
      const encounter = await newEncounter()
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.member.token })
        const events = recordEvents(socket.client, 'medical-encounters')
        const service = socket.client.service('medical-encounters') as any
        const updated = await service.update(encounter.id, {
          facility: facility.id,
          patient: facility.member.account.id,
          notes: 'over the socket'
        })
        assert.equal(updated.notes, 'over the socket')
        await waitUntil(
          () => events.some((e) => e.event === 'updated' && e.data.id === encounter.id),
          5000,
          'updated event'
        )
        assert.equal(
          (
            await restClient(server.url, facility.biller.token).patch(`/medical-encounters/${encounter.id}`, {
              finalize: true
            })
          ).status,
          200
        )
        await assert.rejects(
          service.update(encounter.id, { facility: facility.id, patient: facility.member.account.id }),
          (error: any) => error.code === 409
        )
      } finally {
        socket.close()
      }
      const stranger = await restClient(server.url, facility.stranger.token).put(
        `/medical-encounters/${encounter.id}`,
        { facility: facility.id, patient: facility.member.account.id }
      )
      assert.equal(stranger.status, 404)
    })
  })

  describe('webhooks', () => {
    let receivers: TestWebhookReceiver[] = []
    let hooked: TestServer
    let clinic: FacilityFixture
    before(async () => {
      ;({ server: hooked, facility: clinic } = await startFacilityServer({
        webhooks: {
          allowPrivate: true,
          retryDelaysMs: [200],
          timeoutMs: 2000,
          pollIntervalMs: 50,
          leaseMarginMs: 30000
        }
      }))
    })
    after(async () => {
      await Promise.all(receivers.map((r) => r.close()))
      receivers = []
      await hooked.close()
    })

    const subscribe = async (token: string, organization: string) => {
      const receiver = await startWebhookReceiver()
      receivers.push(receiver)
      const hook = await http(hooked.url, 'POST', '/webhook-events', {
        token,
        body: { organization, url: receiver.url, events: 'medical-encounters' }
      })
      assert.equal(hook.status, 201, JSON.stringify(hook.body))
      receiver.setSecret(hook.body.secret)
      return receiver
    }

    it("delivers create, update, patch and remove of the facility's encounters, signed, with the documents; another facility's webhook gets nothing", async () => {
      const own = await subscribe(clinic.owner.token, clinic.id)
      const other = await subscribe(clinic.stranger.token, clinic.strangerFacility)
      const api = restClient(hooked.url, clinic.member.token)
      const created = await api.post('/medical-encounters', {
        facility: clinic.id,
        patient: clinic.member.account.id
      })
      assert.equal(created.status, 201)
      const id = created.body.id
      assert.equal(
        (
          await api.put(`/medical-encounters/${id}`, {
            facility: clinic.id,
            patient: clinic.member.account.id,
            notes: 'replaced'
          })
        ).status,
        200
      )
      assert.equal((await api.patch(`/medical-encounters/${id}`, { notes: 'patched' })).status, 200)
      assert.equal((await api.delete(`/medical-encounters/${id}`)).status, 200)

      await own.waitForCount(4)
      const byEvent = new Map(own.received.map((r) => [r.body.event, r]))
      assert.deepEqual([...byEvent.keys()].sort(), [
        'medical-encounters.create',
        'medical-encounters.patch',
        'medical-encounters.remove',
        'medical-encounters.update'
      ])
      assert.ok(
        own.received.every((r) => r.verified === true),
        'every delivery is signed with the webhook secret'
      )
      assert.equal(byEvent.get('medical-encounters.update')!.body.payload.notes, 'replaced')
      assert.equal(byEvent.get('medical-encounters.patch')!.body.payload.notes, 'patched')
      const removed = byEvent.get('medical-encounters.remove')!.body.payload
      assert.deepEqual(
        [removed.id, removed.facility, removed.notes, removed.deleting],
        [id, clinic.id, 'patched', undefined]
      )
      await sleep(300)
      assert.equal(other.received.length, 0)
    })
  })
})
