import assert from 'node:assert/strict'
import {
  startServer,
  restClient,
  signUp,
  socketClient,
  recordEvents,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../../helpers/app'
import { validRecords } from '../../fixtures/medical-records'

// Three accounts in two organizations:
//   alice  — superadmin of Clinic A (no roles or privileges)
//   bob    — Clinic A: roles [doctor]; Lab B: privileges [lab.view]
//   carol  — superadmin of Lab B (no roles or privileges); Clinic A: roles [nurse], privileges [billing]
type Who = 'alice' | 'bob' | 'carol'
type Level = 'none' | 'read' | 'write' | 'share' | 'all'
const canRead = (level: Level) => level !== 'none'
const canWrite = (level: Level) => level === 'write' || level === 'all'
const canShare = (level: Level) => level === 'share' || level === 'all'

interface Case {
  name: string
  creator: Who
  permissions: (ids: Record<string, string>) => Record<string, any>[]
  expect: Record<Who, Level>
}

const cases: Case[] = [
  {
    name: 'no elements: only the creator',
    creator: 'alice',
    permissions: () => [],
    expect: { alice: 'all', bob: 'none', carol: 'none' }
  },
  {
    name: 'a uid element',
    creator: 'alice',
    permissions: (i) => [{ uid: i.bob }],
    expect: { alice: 'all', bob: 'read', carol: 'none' }
  },
  {
    name: 'a uid element with write',
    creator: 'alice',
    permissions: (i) => [{ uid: i.bob, write: true }],
    expect: { alice: 'all', bob: 'write', carol: 'none' }
  },
  {
    name: 'a uid element with share',
    creator: 'alice',
    permissions: (i) => [{ uid: i.carol, share: true }],
    expect: { alice: 'all', bob: 'none', carol: 'share' }
  },
  {
    name: 'an organization element without roles or privileges (every member)',
    creator: 'alice',
    permissions: (i) => [{ organization: i.clinicA }],
    expect: { alice: 'all', bob: 'read', carol: 'read' }
  },
  {
    name: 'an organization element with empty lists, write and share',
    creator: 'alice',
    permissions: (i) => [{ organization: i.clinicA, roles: [], privileges: [], write: true, share: true }],
    expect: { alice: 'all', bob: 'all', carol: 'all' }
  },
  {
    name: 'an organization element with roles (write)',
    creator: 'alice',
    permissions: (i) => [{ organization: i.clinicA, roles: ['doctor'], write: true }],
    expect: { alice: 'all', bob: 'write', carol: 'none' }
  },
  {
    name: 'an organization element with privileges (share)',
    creator: 'alice',
    permissions: (i) => [{ organization: i.clinicA, privileges: ['billing'], share: true }],
    expect: { alice: 'all', bob: 'none', carol: 'share' }
  },
  {
    name: 'an organization element with roles and privileges (either one matches)',
    creator: 'alice',
    permissions: (i) => [{ organization: i.clinicA, roles: ['surgeon', 'nurse'], privileges: ['radiology'] }],
    expect: { alice: 'all', bob: 'none', carol: 'read' }
  },
  {
    name: 'a role held in another organization does not count',
    creator: 'alice',
    permissions: (i) => [{ organization: i.labB, roles: ['doctor'], write: true, share: true }],
    expect: { alice: 'all', bob: 'none', carol: 'none' }
  },
  {
    name: 'a privilege in the second organization (write and share)',
    creator: 'alice',
    permissions: (i) => [{ organization: i.labB, privileges: ['lab.view'], write: true, share: true }],
    expect: { alice: 'all', bob: 'all', carol: 'none' }
  },
  {
    name: 'an organization element of the second organization, created by its superadmin',
    creator: 'carol',
    permissions: (i) => [{ organization: i.labB }],
    expect: { alice: 'none', bob: 'read', carol: 'all' }
  },
  {
    name: 'several elements: each grants what it says',
    creator: 'bob',
    permissions: (i) => [
      { uid: i.alice, share: true },
      { organization: i.clinicA, roles: ['nurse'], write: true }
    ],
    expect: { alice: 'share', bob: 'all', carol: 'write' }
  }
]

describe('medical-records permissions', function () {
  let server: TestServer
  let api: ReturnType<typeof restClient>
  const users = {} as Record<Who, SignedUp>
  const ids = {} as Record<string, string>
  const sockets = {} as Record<Who, ReturnType<typeof socketClient>>
  const everyone: Who[] = ['alice', 'bob', 'carol']

  const addMember = async (
    by: SignedUp,
    organization: string,
    member: SignedUp,
    roles: string[],
    privileges: string[]
  ) => {
    const response = await api.post(
      '/organization-members',
      { organization, uid: member.account.id, roles, privileges },
      { token: by.token }
    )
    assert.equal(response.status, 201, JSON.stringify(response.body))
  }

  before(async () => {
    server = await startServer()
    api = restClient(server.url)
    users.alice = await signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } })
    users.bob = await signUp(server.url)
    users.carol = await signUp(server.url, { organization: { name: 'Lab B', type: 'facility' } })
    for (const who of everyone) ids[who] = users[who].account.id
    ids.clinicA = users.alice.organization.id
    ids.labB = users.carol.organization.id
    await addMember(users.alice, ids.clinicA, users.bob, ['doctor'], [])
    await addMember(users.alice, ids.clinicA, users.carol, ['nurse'], ['billing'])
    await addMember(users.carol, ids.labB, users.bob, [], ['lab.view'])
    for (const who of everyone) {
      sockets[who] = socketClient(server.url)
      await sockets[who].client.authenticate({ strategy: 'jwt', accessToken: users[who].token })
      await waitUntil(
        () =>
          server.app
            .channel(`accounts/${ids[who]}`)
            .connections.some((c: any) => c.channelAccess?.memberships),
        5000,
        `${who}'s channels`
      )
    }
  })
  after(async () => {
    for (const who of everyone) sockets[who]?.close()
    await server.close()
  })

  let serial = 0
  const createFor = async (test: Case, extra: Record<string, any> = {}) => {
    const patient = `patient-${++serial}-${Date.now()}`
    const response = await api.post(
      '/medical-records',
      { ...validRecords.allergy, facility: undefined, patient, permissions: test.permissions(ids), ...extra },
      { token: users[test.creator].token }
    )
    assert.equal(response.status, 200, JSON.stringify(response.body))
    return response.body
  }

  // The same calls over REST and over the Feathers client on Socket.IO, answered as HTTP-like statuses.
  const transports = {
    REST: {
      get: async (who: Who, id: string) =>
        (await api.get(`/medical-records/${id}`, { token: users[who].token })).status,
      find: async (who: Who, patient: string) => {
        const response = await api.get(`/medical-records?patient=${patient}`, { token: users[who].token })
        assert.equal(response.status, 200)
        return response.body.data.map((r: any) => r.id)
      },
      list: async (who: Who, since: number) => {
        const response = await api.get(
          `/medical-records?createdAt[$gte]=${since}&$sort[createdAt]=-1&$limit=100`,
          { token: users[who].token }
        )
        assert.equal(response.status, 200)
        return response.body.data.map((r: any) => r.id)
      },
      patch: async (who: Who, id: string, body: unknown) =>
        (await api.patch(`/medical-records/${id}`, body, { token: users[who].token })).status,
      remove: async (who: Who, id: string) =>
        (await api.delete(`/medical-records/${id}`, { token: users[who].token })).status
    },
    'Socket.IO': {
      get: (who: Who, id: string) => status(sockets[who].client.service('medical-records').get(id)),
      find: async (who: Who, patient: string) => {
        const page = await sockets[who].client.service('medical-records').find({ query: { patient } })
        return page.data.map((r: any) => r.id)
      },
      list: async (who: Who, since: number) => {
        const page = await sockets[who].client
          .service('medical-records')
          .find({ query: { createdAt: { $gte: since }, $sort: { createdAt: -1 }, $limit: 100 } })
        return page.data.map((r: any) => r.id)
      },
      patch: (who: Who, id: string, body: any) =>
        status(sockets[who].client.service('medical-records').patch(id, body)),
      remove: (who: Who, id: string) => status(sockets[who].client.service('medical-records').remove(id))
    }
  }
  const status = (call: Promise<unknown>) =>
    call.then(
      () => 200,
      (error: any) => error.code as number
    )

  for (const [transport, call] of Object.entries(transports)) {
    describe(`over ${transport}`, () => {
      for (const test of cases) {
        it(`${test.name}: ${everyone.map((who) => `${who} ${test.expect[who]}`).join(', ')}`, async () => {
          const record = await createFor(test)
          for (const who of everyone) {
            const level = test.expect[who]
            const what = `${who} (${level})`
            assert.equal(await call.get(who, record.id), canRead(level) ? 200 : 404, `get by ${what}`)
            assert.deepEqual(
              await call.find(who, record.patient),
              canRead(level) ? [record.id] : [],
              `find by ${what}`
            )
            const patched = await call.patch(who, record.id, { description: `edited by ${who}` })
            assert.equal(patched, canWrite(level) ? 200 : canRead(level) ? 403 : 404, `patch by ${what}`)
            if (!canWrite(level)) {
              const finalizing = await call.patch(who, record.id, { finalize: true })
              assert.equal(finalizing, canRead(level) ? 403 : 404, `finalize by ${what}`)
            }
            const shared = await call.patch(who, record.id, { permissions: test.permissions(ids) })
            assert.equal(shared, canShare(level) ? 200 : canRead(level) ? 403 : 404, `share by ${what}`)
            const mixed = await call.patch(who, record.id, {
              permissions: test.permissions(ids),
              description: 'both'
            })
            assert.equal(
              mixed,
              canShare(level) && canWrite(level) ? 200 : canRead(level) ? 403 : 404,
              `share and write by ${what}`
            )
          }
          // The refused finalize attempts left no trace.
          const stored = await (server.app.service('medical-records' as any) as any)._get(record.id)
          assert.equal(stored.finalizedAt, undefined)
          // Removal: everyone without write first (403 / 404), then the first writer (200).
          const order = [...everyone].sort(
            (a, b) => Number(canWrite(test.expect[a])) - Number(canWrite(test.expect[b]))
          )
          for (const who of order) {
            const level = test.expect[who]
            const removed = await call.remove(who, record.id)
            if (canWrite(level)) {
              assert.equal(removed, 200, `remove by ${who}`)
              break
            }
            assert.equal(removed, canRead(level) ? 403 : 404, `remove by ${who} (${level})`)
          }
          assert.equal(await call.get(test.creator, record.id), 404)
        })
      }

      it('lists exactly the records each account may read when find names no indexed filter', async () => {
        const since = Date.now()
        const created: { test: Case; id: string }[] = []
        for (const test of cases) created.push({ test, id: (await createFor(test)).id })
        for (const who of everyone) {
          const found = await call.list(who, since)
          const expected = created.filter(({ test }) => canRead(test.expect[who])).map(({ id }) => id)
          assert.deepEqual([...found].sort(), expected.sort(), `records listed for ${who}`)
        }
        for (const { test, id } of created) assert.equal(await call.remove(test.creator, id), 200)
      })

      it('on a finalized record: sharers still change permissions, writers get 409, readers 403, others 404', async () => {
        const test: Case = {
          name: 'finalized',
          creator: 'alice',
          permissions: (i) => [
            { uid: i.bob, write: true },
            { organization: i.clinicA, privileges: ['billing'], share: true }
          ],
          expect: { alice: 'all', bob: 'write', carol: 'share' }
        }
        const record = await createFor(test)
        assert.equal(await call.patch('bob', record.id, { finalize: true }), 200)
        assert.equal(await call.patch('bob', record.id, { description: 'late' }), 409)
        assert.equal(await call.patch('bob', record.id, { finalize: true }), 409)
        assert.equal(await call.remove('bob', record.id), 409)
        assert.equal(await call.patch('bob', record.id, { permissions: [] }), 403)
        assert.equal(await call.patch('carol', record.id, { description: 'late' }), 403)
        assert.equal(
          await call.patch('carol', record.id, { permissions: [...test.permissions(ids), { uid: ids.bob }] }),
          200
        )
        assert.equal(await call.remove('carol', record.id), 403)
        // carol takes bob off the record: he no longer sees it.
        assert.equal(
          await call.patch('carol', record.id, {
            permissions: [{ organization: ids.clinicA, privileges: ['billing'], share: true }]
          }),
          200
        )
        assert.equal(await call.get('bob', record.id), 404)
        assert.equal(await call.patch('bob', record.id, { permissions: [] }), 404)
        assert.equal(await call.remove('alice', record.id), 409)
      })
    })
  }

  describe('realtime events', () => {
    it('created, patched and removed events reach exactly the connections that may read the record', async () => {
      const received = {} as Record<Who, { event: string; data: any }[]>
      for (const who of everyone)
        received[who] = recordEvents(sockets[who].client, 'medical-records', [
          'created',
          'patched',
          'removed'
        ])
      const records: { test: Case; id: string }[] = []
      for (const test of cases) {
        const record = await createFor(test)
        records.push({ test, id: record.id })
        const patched = await api.patch(
          `/medical-records/${record.id}`,
          { description: 'updated' },
          { token: users[test.creator].token }
        )
        assert.equal(patched.status, 200)
        const removed = await api.delete(`/medical-records/${record.id}`, {
          token: users[test.creator].token
        })
        assert.equal(removed.status, 200)
      }
      // A last record everyone may read: once each connection has its events, it has every earlier one too.
      const sentinel = await createFor({
        name: 'sentinel',
        creator: 'alice',
        permissions: (i) => [{ organization: i.clinicA }],
        expect: {} as any
      })
      for (const who of everyone) {
        await waitUntil(
          () => received[who].some((e) => e.data.id === sentinel.id),
          5000,
          `${who} receives the sentinel`
        )
      }
      for (const { test, id } of records) {
        for (const who of everyone) {
          const events = received[who].filter((e) => e.data.id === id).map((e) => e.event)
          assert.deepEqual(
            events,
            canRead(test.expect[who]) ? ['created', 'patched', 'removed'] : [],
            `${test.name}: events of ${who}`
          )
        }
      }
      for (const who of everyone) {
        for (const event of received[who]) {
          assert.equal(event.data._id, undefined)
        }
      }
    })

    it('sharing a record sends the patched event to the new reader; unsharing stops further events', async () => {
      const received = {} as Record<Who, { event: string; data: any }[]>
      for (const who of everyone)
        received[who] = recordEvents(sockets[who].client, 'medical-records', [
          'created',
          'patched',
          'removed'
        ])
      const record = await createFor({
        name: 'share',
        creator: 'alice',
        permissions: () => [],
        expect: {} as any
      })
      const shared: any = await sockets.alice.client
        .service('medical-records')
        .patch(record.id, { permissions: [{ uid: ids.carol }] })
      assert.deepEqual(shared.permissions, [
        { uid: ids.carol, roles: [], privileges: [], write: false, share: false }
      ])
      await waitUntil(
        () => received.carol.some((e) => e.data.id === record.id),
        5000,
        'carol receives the share'
      )
      await sockets.alice.client
        .service('medical-records')
        .patch(record.id, { permissions: [{ uid: ids.bob }] })
      await sockets.alice.client.service('medical-records').patch(record.id, { description: 'for bob only' })
      await waitUntil(
        () => received.bob.filter((e) => e.data.id === record.id).length === 2,
        5000,
        'bob receives both patches'
      )
      await waitUntil(
        () => received.alice.filter((e) => e.data.id === record.id).length === 4,
        5000,
        'alice receives all four events'
      )
      const sentinel = await createFor({
        name: 'sentinel',
        creator: 'alice',
        permissions: (i) => [{ uid: i.carol }],
        expect: {} as any
      })
      await waitUntil(
        () => received.carol.some((e) => e.data.id === sentinel.id),
        5000,
        'carol receives the sentinel'
      )
      assert.deepEqual(
        received.carol.filter((e) => e.data.id === record.id).map((e) => e.event),
        ['patched']
      )
      assert.deepEqual(
        received.bob.filter((e) => e.data.id === record.id).map((e) => e.data.description),
        [validRecords.allergy.description, 'for bob only']
      )
    })

    it('a new membership with a matching role opens the organization’s records to that connection', async () => {
      const outsider = await signUp(server.url)
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: outsider.token })
        await waitUntil(
          () =>
            server.app
              .channel(`accounts/${outsider.account.id}`)
              .connections.some((c: any) => c.channelAccess),
          5000,
          'outsider channels'
        )
        const received = recordEvents(socket.client, 'medical-records', ['created'])
        const before = await createFor({
          name: 'before',
          creator: 'alice',
          permissions: (i) => [{ organization: i.clinicA, roles: ['pharmacist'] }],
          expect: {} as any
        })
        assert.equal((await api.get(`/medical-records/${before.id}`, { token: outsider.token })).status, 404)
        await addMember(users.alice, ids.clinicA, outsider, ['pharmacist'], [])
        await waitUntil(
          () =>
            server.app
              .channel(`organizations/${ids.clinicA}`)
              .connections.some(
                (c: any) => c.account?.id === outsider.account.id && c.channelAccess?.memberships.length === 1
              ),
          5000,
          'outsider joins Clinic A'
        )
        assert.equal((await api.get(`/medical-records/${before.id}`, { token: outsider.token })).status, 200)
        const after = await createFor({
          name: 'after',
          creator: 'alice',
          permissions: (i) => [{ organization: i.clinicA, roles: ['pharmacist'] }],
          expect: {} as any
        })
        await waitUntil(
          () => received.some((e) => e.data.id === after.id),
          5000,
          'the new member receives the record'
        )
        assert.deepEqual(
          received.map((e) => e.data.id),
          [after.id]
        )
      } finally {
        socket.close()
      }
    })
  })
})
