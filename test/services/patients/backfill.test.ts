// The patients of records, encounters and appointments written before patient links existed: a data folder (or
// database) of an older version has such data and no links. At start-up the backfill links them in the
// background, once: it marks itself done in the store, and a later start leaves the links alone.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { restClient, signUp, startServer, tempDir, testMongoUrl, type TestServer } from '../../helpers/app'
import { createSchedule, setupClinic, type ClinicFixture } from '../../helpers/appointments'
import { LONG_SESSIONS } from '../../helpers/subscriptions'
import { depsSlot } from '../../../src/deps'
import { migrationMarkers, patientLinksBackfillDone } from '../../../src/services/patients/patients'

describe('patient links backfill', function () {
  this.timeout(60000)
  const dataDir = tempDir()
  const mongodb = testMongoUrl()
  const start = async () => {
    const server = await startServer({ sessions: LONG_SESSIONS, dataDir, mongodb })
    await patientLinksBackfillDone(server.app)
    return server
  }
  let server: TestServer
  let clinic: ClinicFixture

  // What a folder of the older version holds: the records and no links, no marker.
  const forgetLinks = async (clearMarker: boolean, keep?: string) => {
    const stores = depsSlot.require(server.app).stores
    for (const link of await stores.patients._find({ query: {}, paginate: false }))
      if (link.patient !== keep) await stores.patients._remove(link.id)
    const markers = migrationMarkers(server.app)
    assert.ok(markers)
    if (clearMarker)
      for (const marker of await markers._find({ query: {}, paginate: false }))
        await markers._remove(marker.id)
  }
  const listed = async () => {
    const res = await restClient(server.url, clinic.member.token).get(
      `/patients?facility=${clinic.id}&$limit=50&$sort[lastName]=1`
    )
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.data.map((p: { patient: string; source: string }) => [p.patient, p.source])
  }

  after(async () => {
    await server?.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('lists the patients of earlier records, encounters and appointments after a restart, once, finishing a cut-off run', async () => {
    server = await start()
    clinic = await setupClinic(server.url)
    const api = restClient(server.url, clinic.owner.token)
    const ada = await signUp(server.url, { firstName: 'Ada', lastName: 'Byron' })
    const grace = await signUp(server.url, { firstName: 'Grace', lastName: 'Hopper' })
    for (const name of ['Penicillin', 'Peanuts']) {
      const record = await api.post('/medical-records', {
        type: 'allergy',
        name,
        facility: clinic.id,
        patient: ada.account.id
      })
      assert.equal(record.status, 200, JSON.stringify(record.body))
    }
    const encounter = await api.post('/medical-encounters', {
      facility: clinic.id,
      patient: grace.account.id
    })
    assert.ok([200, 201].includes(encounter.status), JSON.stringify(encounter.body))
    await createSchedule(server.url, clinic)
    const now = Date.now()
    const slots = await restClient(server.url, clinic.scheduler.token).get(
      `/appointment-slots?facility=${clinic.id}&from=${now + 86_400_000}&to=${now + 15 * 86_400_000}&$limit=1`
    )
    assert.equal(slots.status, 200, JSON.stringify(slots.body))
    const mary = await signUp(server.url, { firstName: 'Mary', lastName: 'Jackson' })
    const booked = await restClient(server.url, clinic.scheduler.token).post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: mary.account.id,
      start: slots.body.data[0].start
    })
    assert.equal(booked.status, 201, JSON.stringify(booked.body))
    const expected = [
      [ada.account.id, 'medical-records'],
      [grace.account.id, 'medical-encounters'],
      [mary.account.id, 'appointments']
    ]
    assert.deepEqual(await listed(), expected)

    await forgetLinks(true)
    assert.deepEqual(await listed(), [])
    await server.close({ keep: true })
    server = await start()
    assert.deepEqual(await listed(), expected, 'the backfill linked them, one link per patient')

    // A backfill stopped halfway (one link made, no marker): the next start finishes it without a second link.
    await forgetLinks(true, grace.account.id)
    assert.deepEqual(await listed(), [[grace.account.id, 'medical-encounters']])
    await server.close({ keep: true })
    server = await start()
    assert.deepEqual(await listed(), expected)

    // A later start finds the marker and writes nothing (a link removed since stays removed).
    await forgetLinks(false)
    await server.close({ keep: true })
    server = await start()
    assert.deepEqual(await listed(), [])
  })
})
