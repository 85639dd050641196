// The attacks that once crossed tenants over Socket.IO, replayed: ids written as operator objects, writes to
// documents shared read-only, cascades fed with another tenant's ids. Each must be refused (400 for a
// non-string id, 403/404 otherwise) and leave the other tenant's documents exactly as they were.
import assert from 'node:assert/strict'
import type { Socket } from 'socket.io-client'
import { http, restClient, socketClient, type TestServer } from '../helpers/app'
import {
  addMember,
  fieldsOf,
  invoiceWithItems,
  pay,
  startFacilityServer,
  type FacilityFixture
} from '../helpers/billing'
import { validRecords } from '../fixtures/medical-records'

// An allergy record filed under no facility.
const { facility: _facility, ...allergy } = validRecords.allergy

interface SocketAnswer {
  error?: { code: number; message: string; data?: any }
  result?: any
}

/** One raw Socket.IO call, exactly as an attacker's client sends it: emit(method, path, ...args, callback). */
const emit = (socket: Socket, method: string, path: string, ...args: unknown[]) =>
  new Promise<SocketAnswer>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${method} ${path}: no answer`)), 10000)
    socket.emit(method, path, ...args, (error: any, result: any) => {
      clearTimeout(timer)
      resolve(error ? { error } : { result })
    })
  })

describe('security: one write-scope path for every transport', () => {
  let server: TestServer
  let facility: FacilityFixture
  let attacker: ReturnType<typeof socketClient>
  let own: { organization: string; membership: string; invoice: string; item: string; record: string }
  let theirs: {
    membership: string
    ownerMembership: string
    service: string
    invoice: string
    item: string
    payment: string
    record: string
  }

  const store = (path: string) => server.app.service(path as any) as any
  const snapshot = async (path: string, id: string) => store(path)._get(id)

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    const { url } = server
    // The attacker: a plain member of facility A (facility.member) and superadmin of an organization of its own.
    const mine = await http(url, 'POST', '/organizations', {
      token: facility.member.token,
      body: { name: 'Attacker Clinic', type: 'facility' }
    })
    assert.equal(mine.status, 201, JSON.stringify(mine.body))
    const attackerApi = restClient(url, facility.member.token)
    const ownerApi = restClient(url, facility.owner.token)
    const memberships = (await attackerApi.get(`/organization-members?uid=${facility.member.account.id}`))
      .body.data
    const membershipIn = (organization: string) =>
      memberships.find((m: any) => m.organization === organization).id
    const ownerMembership = (
      await ownerApi.get(`/organization-members?organization=${facility.id}&uid=${facility.owner.account.id}`)
    ).body.data[0].id

    const ownInvoice = await attackerApi.post('/billing-invoices', {
      facility: mine.body.id,
      type: 'walk-in',
      subject: 'p1',
      subjectType: 'patient'
    })
    const ownItem = await attackerApi.post('/billing-items', {
      invoice: ownInvoice.body.id,
      type: 'custom',
      name: 'Mine',
      price: 5
    })
    const ownRecord = await attackerApi.post('/medical-records', allergy)
    assert.equal(ownRecord.status, 200, JSON.stringify(ownRecord.body))
    const { invoice, items } = await invoiceWithItems(url, facility, [40])
    const payment = await pay(url, facility, items[0].id, 10)
    const service = await ownerApi.post('/services', {
      facility: facility.id,
      name: 'Consultation',
      type: 'consultation',
      price: 30
    })
    assert.equal(service.status, 201, JSON.stringify(service.body))
    // Shared with the attacker read-only.
    const shared = await ownerApi.post('/medical-records', {
      ...allergy,
      facility: facility.id,
      permissions: [{ uid: facility.member.account.id }]
    })
    assert.equal(shared.status, 200, JSON.stringify(shared.body))

    own = {
      organization: mine.body.id,
      membership: membershipIn(mine.body.id),
      invoice: ownInvoice.body.id,
      item: ownItem.body.id,
      record: ownRecord.body.id
    }
    theirs = {
      membership: membershipIn(facility.id),
      ownerMembership,
      service: service.body.id,
      invoice: invoice.id,
      item: items[0].id,
      payment: payment.id,
      record: shared.body.id
    }

    attacker = socketClient(url)
    await attacker.client.authenticate({ strategy: 'jwt', accessToken: facility.member.token })
  })

  after(async () => {
    attacker?.close()
    await server?.close()
  })

  it('refuses an $in id that makes a plain member superadmin of the other organization (400), changing nothing', async () => {
    const before = await snapshot('organization-members', theirs.membership)
    const answer = await emit(
      attacker.socket,
      'patch',
      'organization-members',
      { $in: [own.membership, theirs.membership] },
      { superadmin: true },
      {}
    )
    assert.equal(answer.error?.code, 400)
    assert.deepEqual(fieldsOf(answer.error), ['id'])
    assert.deepEqual(await snapshot('organization-members', theirs.membership), before)
    assert.equal(before.superadmin, false)
  })

  it('refuses $in ids that rename the other organization or set its prices (400)', async () => {
    const organization = await snapshot('organizations', facility.id)
    const service = await snapshot('services', theirs.service)
    assert.equal(
      (
        await emit(
          attacker.socket,
          'patch',
          'organizations',
          { $in: [own.organization, facility.id] },
          { name: 'Owned' },
          {}
        )
      ).error?.code,
      400
    )
    assert.equal(
      (await emit(attacker.socket, 'patch', 'services', { $in: [theirs.service] }, { price: 1 }, {})).error
        ?.code,
      400
    )
    assert.deepEqual(await snapshot('organizations', facility.id), organization)
    assert.deepEqual(await snapshot('services', theirs.service), service)
  })

  it("refuses an $in id that removes the other organization's only superadmin (400)", async () => {
    const answer = await emit(
      attacker.socket,
      'remove',
      'organization-members',
      { $in: [own.membership, theirs.ownerMembership] },
      {}
    )
    assert.equal(answer.error?.code, 400)
    assert.equal((await snapshot('organization-members', theirs.ownerMembership)).superadmin, true)
  })

  it('refuses changing or removing a record shared read-only: 400 for an $in id, 403 for its own id, on both transports', async () => {
    const before = await snapshot('medical-records', theirs.record)
    assert.equal(
      (
        await emit(
          attacker.socket,
          'patch',
          'medical-records',
          { $in: [own.record, theirs.record] },
          { description: 'changed' },
          {}
        )
      ).error?.code,
      400
    )
    assert.equal(
      (await emit(attacker.socket, 'remove', 'medical-records', { $in: [own.record, theirs.record] }, {}))
        .error?.code,
      400
    )
    assert.equal(
      (await emit(attacker.socket, 'patch', 'medical-records', theirs.record, { description: 'changed' }, {}))
        .error?.code,
      403
    )
    assert.equal(
      (await emit(attacker.socket, 'remove', 'medical-records', theirs.record, {})).error?.code,
      403
    )
    const api = restClient(server.url, facility.member.token)
    assert.equal(
      (await api.patch(`/medical-records/${theirs.record}`, { description: 'changed' })).status,
      403
    )
    assert.equal((await api.delete(`/medical-records/${theirs.record}`)).status, 403)
    assert.deepEqual(await snapshot('medical-records', theirs.record), before)
  })

  it("refuses billing cascades fed with the other tenant's ids (400), keeping its items and payments", async () => {
    assert.equal(
      (await emit(attacker.socket, 'remove', 'billing-items', { $in: [own.item, theirs.item] }, {})).error
        ?.code,
      400
    )
    assert.equal(
      (await emit(attacker.socket, 'remove', 'billing-invoices', { $in: [own.invoice, theirs.invoice] }, {}))
        .error?.code,
      400
    )
    // A plain member of the facility may not remove its items or invoices either (403).
    assert.equal((await emit(attacker.socket, 'remove', 'billing-items', theirs.item, {})).error?.code, 403)
    assert.equal(
      (await emit(attacker.socket, 'remove', 'billing-invoices', theirs.invoice, {})).error?.code,
      403
    )
    assert.equal((await snapshot('billing-items', theirs.item)).deleting, false)
    assert.equal((await snapshot('billing-payments', theirs.payment)).amount, 10)
    assert.ok(await snapshot('billing-invoices', theirs.invoice))
    // The attacker's own documents are untouched too: nothing ran.
    assert.ok(await snapshot('billing-items', own.item))
  })

  it('answers 400 (never 500) for operator, number, boolean, array and null ids on every method; 405 for a method no service has', async () => {
    const ids: unknown[] = [
      { $regex: 'a' },
      { $where: 'true' },
      { $ne: null },
      { $gt: '' },
      42,
      true,
      [theirs.item],
      {}
    ]
    for (const id of ids) {
      for (const [method, args] of [
        ['get', [id, {}]],
        ['patch', [id, { name: 'x' }, {}]],
        ['remove', [id, {}]]
      ] as const) {
        const answer = await emit(attacker.socket, method, 'billing-items', ...args)
        assert.equal(
          answer.error?.code,
          400,
          `${method} with id ${JSON.stringify(id)}: ${JSON.stringify(answer)}`
        )
      }
    }
    assert.equal((await emit(attacker.socket, 'get', 'billing-items', null, {})).error?.code, 400)
    // No service offers `update` (PUT): over Socket.IO too it is answered, with 405.
    assert.equal(
      (await emit(attacker.socket, 'update', 'billing-items', { $ne: null }, { name: 'x' }, {})).error?.code,
      405
    )
    assert.equal((await emit(attacker.socket, 'frobnicate', 'billing-items', {})).error?.code, 405)
    assert.equal((await snapshot('billing-items', theirs.item)).deleting, false)
  })

  it('refuses moving a record into a facility its writer is not a member of (404 naming facility), as create does', async () => {
    const api = restClient(server.url, facility.stranger.token)
    const record = await api.post('/medical-records', allergy)
    assert.equal(record.status, 200)
    const moved = await api.patch(`/medical-records/${record.body.id}`, { facility: facility.id })
    assert.equal(moved.status, 404)
    assert.deepEqual(fieldsOf(moved.body), ['facility'])
    assert.equal((await snapshot('medical-records', record.body.id)).facility, undefined)
    const created = await api.post('/medical-records', { ...allergy, facility: facility.id })
    assert.equal(created.status, 404)
    // Into its own organization it may.
    const own = await api.patch(`/medical-records/${record.body.id}`, { facility: facility.strangerFacility })
    assert.equal(own.status, 200, JSON.stringify(own.body))
  })

  it('keeps create rules the same on both transports: an outsider adding itself to the facility is a 404, a plain member a 403', async () => {
    const outsider = socketClient(server.url)
    try {
      await outsider.client.authenticate({ strategy: 'jwt', accessToken: facility.stranger.token })
      const body = { organization: facility.id, uid: facility.stranger.account.id, superadmin: true }
      assert.equal((await emit(outsider.socket, 'create', 'organization-members', body, {})).error?.code, 404)
      assert.equal(
        (await http(server.url, 'POST', '/organization-members', { token: facility.stranger.token, body }))
          .status,
        404
      )
      assert.equal(
        (
          await emit(
            attacker.socket,
            'create',
            'organization-members',
            { ...body, uid: facility.member.account.id },
            {}
          )
        ).error?.code,
        403
      )
      const added = await store('organization-members')._find({
        paginate: false,
        query: { organization: facility.id, uid: facility.stranger.account.id }
      })
      assert.equal(added.length, 0)
    } finally {
      outsider.close()
    }
  })

  it('lets the rightful callers still do all of it (the owner renames, the biller removes an item)', async () => {
    const ownerApi = restClient(server.url, facility.owner.token)
    assert.equal(
      (await ownerApi.patch(`/organizations/${facility.id}`, { name: 'Renamed Clinic' })).status,
      200
    )
    const { items } = await invoiceWithItems(server.url, facility, [12])
    const removed = await http(server.url, 'DELETE', `/billing-items/${items[0].id}`, {
      token: facility.biller.token
    })
    assert.equal(removed.status, 200, JSON.stringify(removed.body))
    await addMember(server.url, facility.owner, facility.id, facility.stranger)
  })
})
