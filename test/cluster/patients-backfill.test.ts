// The patient links backfill on two instances starting together on one MongoDB and one Redis (the emulator
// enforces no unique index): the Redis lease lets one of them run it, so each earlier patient gets one link.
import assert from 'node:assert/strict'
import { restClient, signUp, startServer, type TestServer } from '../helpers/app'
import { setupClinic } from '../helpers/appointments'
import { startSharedStore, type SharedStore } from '../helpers/cluster'
import { LONG_SESSIONS } from '../helpers/subscriptions'
import { depsSlot } from '../../src/deps'
import { migrationMarkers, patientLinksBackfillDone } from '../../src/services/patients/patients'

describe('patient links backfill on two instances', function () {
  this.timeout(60000)
  let store: SharedStore
  const later: TestServer[] = []

  before(async () => {
    store = await startSharedStore('backfill')
  })
  after(async () => {
    for (const server of later) await server.close({ keep: true })
    await store.stop()
  })

  it('links each earlier patient once when two instances start at the same time', async () => {
    const [a] = await store.startPair({ sessions: LONG_SESSIONS })
    const clinic = await setupClinic(a.url)
    const people = await Promise.all([signUp(a.url), signUp(a.url), signUp(a.url)])
    for (const person of people) {
      const record = await restClient(a.url, clinic.owner.token).post('/medical-records', {
        type: 'allergy',
        name: 'Latex',
        facility: clinic.id,
        patient: person.account.id
      })
      assert.equal(record.status, 200, JSON.stringify(record.body))
    }
    // An older version's data: the records, no links, no marker.
    const stores = depsSlot.require(a.app).stores
    for (const link of await stores.patients._find({ query: {}, paginate: false }))
      await stores.patients._remove(link.id)
    const markers = migrationMarkers(a.app)
    assert.ok(markers)
    for (const marker of await markers._find({ query: {}, paginate: false })) await markers._remove(marker.id)

    const pair = await Promise.all([
      startServer({ ...store.shared, sessions: LONG_SESSIONS }),
      startServer({ ...store.shared, sessions: LONG_SESSIONS })
    ])
    later.push(...pair)
    await Promise.all(pair.map((server) => patientLinksBackfillDone(server.app)))
    const links = await stores.patients._find({ query: { facility: clinic.id }, paginate: false })
    assert.deepEqual(
      links.map((link) => link.patient).sort(),
      people.map((person) => person.account.id).sort(),
      'one link per patient'
    )
    assert.equal((await markers._find({ query: {}, paginate: false })).length, 1)
    const listed = await restClient(pair[1].url, clinic.member.token).get(`/patients?facility=${clinic.id}`)
    assert.equal(listed.body.total, 3, JSON.stringify(listed.body))
  })
})
