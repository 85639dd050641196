// Names for people on the answers a calendar and a patient read: appointments and schedules carry the parties'
// display names and the facility's, and "who accessed my record" (`GET /audit-events?$names=true`) the actor's
// display name and role — never an email, over REST and Socket.IO.
import assert from 'node:assert/strict'
import { restClient, socketClient, startServer, type TestServer } from '../helpers/app'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { LONG_SESSIONS } from '../helpers/subscriptions'

const HOUR = 3_600_000
// Monday 8 March 2027, 06:00 UTC.
const NOW = Date.UTC(2027, 2, 8, 6, 0)
const NINE = Date.UTC(2027, 2, 8, 9, 0)

describe('names on appointments, schedules and audit events', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  let schedule: { id: string }
  let appointment: { id: string }
  const api = (token?: string) => restClient(server.url, token)

  const name = async (
    who: { token: string; account: { id: string } },
    firstName: string,
    lastName: string
  ) => {
    const res = await api(who.token).patch(`/accounts/${who.account.id}`, { firstName, lastName })
    assert.equal(res.status, 200, JSON.stringify(res.body))
  }

  before(async () => {
    server = await startServer({ clock: { now: () => NOW }, sessions: LONG_SESSIONS })
    clinic = await setupClinic(server.url)
    await name(clinic.provider, 'Ada', 'Lovelace')
    await name(clinic.patient, 'Pat', 'Example')
    await name(clinic.scheduler, 'Sam', 'Scheduler')
    schedule = await createSchedule(server.url, clinic, { booking: 'patients' })
  })
  after(() => server.close())

  it('shows a patient the schedules open to them with the provider and facility names', async () => {
    const res = await api(clinic.patient.token).get('/schedules?booking=patients&active=true')
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const found = res.body.data.find((s: { id: string }) => s.id === schedule.id)
    assert.deepEqual(found.names, { provider: 'Ada Lovelace', facility: 'Calendar clinic' })
  })

  it("answers a patient's booking with both parties' names and the facility's time zone", async () => {
    const res = await api(clinic.patient.token).post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: clinic.patient.account.id,
      start: NINE
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    assert.deepEqual(res.body.names, {
      provider: 'Ada Lovelace',
      patient: 'Pat Example',
      facility: 'Calendar clinic'
    })
    assert.equal(res.body.timeZone, 'UTC')
    assert.equal(JSON.stringify(res.body).includes(clinic.patient.email), false)
    appointment = res.body
  })

  it("lists a provider's day for staff with names, over REST and Socket.IO", async () => {
    const query = `facility=${clinic.id}&provider=${clinic.provider.account.id}&start[$gte]=${NOW}&start[$lt]=${NOW + 24 * HOUR}`
    const res = await api(clinic.scheduler.token).get(`/appointments?${query}`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(
      res.body.data.map((a: { id: string; names: unknown }) => [a.id, a.names]),
      [[appointment.id, { provider: 'Ada Lovelace', patient: 'Pat Example', facility: 'Calendar clinic' }]]
    )
    const { client, close } = socketClient(server.url)
    try {
      await client.authenticate({ strategy: 'jwt', accessToken: clinic.scheduler.token })
      const page = await client.service('appointments').find({
        query: {
          facility: clinic.id,
          provider: clinic.provider.account.id,
          start: { $gte: NOW, $lt: NOW + 24 * HOUR }
        }
      })
      assert.equal(page.data[0].names?.patient, 'Pat Example')
      // Realtime: the check-in's event carries the names too.
      const patched = new Promise<{ names?: { patient?: string | null } }>((resolve) =>
        client.service('appointments').once('patched', resolve)
      )
      const moved = await api(clinic.scheduler.token).patch(`/appointments/${appointment.id}`, {
        status: 'checked-in'
      })
      assert.equal(moved.status, 200, JSON.stringify(moved.body))
      assert.equal((await patched).names?.patient, 'Pat Example')
    } finally {
      close()
    }
  })

  it('tells a patient who accessed their record by name and role, only when asked', async () => {
    assert.equal((await api(clinic.provider.token).get(`/appointments/${appointment.id}`)).status, 200)
    const me = clinic.patient.account.id
    const plain = await api(clinic.patient.token).get(`/audit-events?patient=${me}&service=appointments`)
    assert.equal(plain.status, 200, JSON.stringify(plain.body))
    assert.equal(plain.body.data.length > 0, true)
    assert.equal('actorName' in plain.body.data[0], false)

    const named = await api(clinic.patient.token).get(
      `/audit-events?patient=${me}&service=appointments&$names=true`
    )
    assert.equal(named.status, 200, JSON.stringify(named.body))
    const byActor = new Map<string, { actorName: string; actorRole: string; facilityName: string }>()
    for (const event of named.body.data) if (event.outcome === 'allowed') byActor.set(event.actor, event)
    assert.deepEqual(
      { ...byActor.get(clinic.provider.account.id) },
      {
        ...byActor.get(clinic.provider.account.id),
        actorName: 'Ada Lovelace',
        actorRole: 'physician',
        facilityName: 'Calendar clinic'
      }
    )
    assert.equal(byActor.get(clinic.scheduler.account.id)?.actorName, 'Sam Scheduler')
    assert.equal(byActor.get(clinic.scheduler.account.id)?.actorRole, 'staff')
    assert.equal(byActor.get(me)?.actorRole, 'patient')
    assert.equal(JSON.stringify(named.body).includes(clinic.provider.email), false)

    const { client, close } = socketClient(server.url)
    try {
      await client.authenticate({ strategy: 'jwt', accessToken: clinic.patient.token })
      const page = await client.service('audit-events').find({ query: { patient: me, $names: true } })
      assert.equal(
        page.data.some((event) => event.actorName === 'Ada Lovelace'),
        true
      )
    } finally {
      close()
    }
  })

  it('names nothing of a patient to a stranger', async () => {
    const res = await api(clinic.stranger.token).get(
      `/audit-events?patient=${clinic.patient.account.id}&$names=true`
    )
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(res.body.data, [])
    const appointments = await api(clinic.stranger.token).get(`/appointments/${appointment.id}`)
    assert.equal(appointments.status, 404)
  })
})
