// The sandbox clock over HTTP and Socket.IO: with SANDBOX_CLOCK=true, GET /sandbox/clock reads the one clock every
// time-driven rule reads; an application admin moves it forward (never backwards) and every due pass runs before
// the answer — a booked appointment becomes a no-show through it. Without the setting the path is a 404; in
// production the setting is refused at start-up.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import {
  http,
  recordEvents,
  restClient,
  socketClient,
  startServer,
  tempDir,
  waitUntil,
  type TestServer
} from '../helpers/app'
import { fieldsOf } from '../helpers/billing'
import { validRecords } from '../fixtures/medical-records'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { ADMIN, LONG_SESSIONS } from '../helpers/subscriptions'
import { startServerProcess } from '../helpers/server-process'

const MIN = 60_000
// A Friday noon (UTC); the clinic's schedule opens Monday 09:00.
const NOW = Date.UTC(2027, 2, 5, 12, 0)
const MONDAY_9 = Date.UTC(2027, 2, 8, 9, 0)

describe('sandbox clock', function () {
  this.timeout(60000)

  describe('with SANDBOX_CLOCK=true', () => {
    let server: TestServer
    let clinic: ClinicFixture
    let admin: string
    const api = (token?: string) => restClient(server.url, token)

    before(async () => {
      server = await startServer({
        admin: ADMIN,
        sandboxClock: true,
        // The real clock stands still at NOW in this test: only the sandbox clock's offset moves time.
        clock: { now: () => NOW },
        sessions: LONG_SESSIONS,
        appointments: { noShowAfterMs: 30 * MIN, jobIntervalMs: 0 }
      })
      clinic = await setupClinic(server.url)
      await createSchedule(server.url, clinic)
      const login = await http(server.url, 'POST', '/authentication', {
        body: { strategy: 'local', ...ADMIN }
      })
      assert.equal(login.status, 201, JSON.stringify(login.body))
      admin = login.body.accessToken
    })
    after(() => server.close())

    it('answers GET with the time and offset to any signed-in account, 401 without a token', async () => {
      assert.equal((await api().get('/sandbox/clock')).status, 401)
      const read = await api(clinic.patient.token).get('/sandbox/clock')
      assert.equal(read.status, 200, JSON.stringify(read.body))
      assert.deepEqual(read.body, { now: NOW, offsetMs: 0 })
    })

    it('lets only an application admin move it: 403 for a facility superadmin and a patient', async () => {
      for (const who of [clinic.owner, clinic.patient]) {
        const res = await api(who.token).patch('/sandbox/clock', { advanceMs: MIN })
        assert.equal(res.status, 403, JSON.stringify(res.body))
      }
      assert.equal((await api(admin).get('/sandbox/clock')).body.offsetMs, 0, 'nothing moved')
    })

    it('refuses moves backwards and malformed moves with a 400 naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ now: NOW - 1 }, 'now'],
        [{ advanceMs: -1 }, 'advanceMs'],
        [{ advanceMs: 1.5 }, 'advanceMs'],
        [{ advanceMs: '60000' }, 'advanceMs'],
        [{}, 'advanceMs'],
        [{ advanceMs: MIN, now: NOW + MIN }, 'advanceMs'],
        [{ offsetMs: 5 }, 'offsetMs']
      ]
      for (const [body, field] of cases) {
        const res = await api(admin).patch('/sandbox/clock', body)
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`)
        assert.ok(fieldsOf(res.body).includes(field), `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`)
      }
      assert.equal((await api(admin).patch('/sandbox/clock/x', { advanceMs: 1 })).status, 404)
      assert.equal((await api(admin).get('/sandbox/clock')).body.offsetMs, 0, 'nothing moved')
    })

    it('turns an overdue appointment into a no-show when moved past it, reporting what each pass changed', async () => {
      const booked = await api(clinic.scheduler.token).post('/appointments', {
        facility: clinic.id,
        provider: clinic.provider.account.id,
        patient: clinic.patient.account.id,
        start: MONDAY_9
      })
      assert.equal(booked.status, 201, JSON.stringify(booked.body))
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: clinic.patient.token })
        const seen = recordEvents(socket.client, 'appointments', ['patched'])
        // Monday 09:45: the 09:00–09:15 appointment ended 30 minutes ago, not more — nothing is due yet.
        const early = await api(admin).patch('/sandbox/clock', { now: MONDAY_9 + 45 * MIN })
        assert.equal(early.status, 200, JSON.stringify(early.body))
        assert.equal(early.body.now, MONDAY_9 + 45 * MIN)
        assert.equal(early.body.offsetMs, MONDAY_9 + 45 * MIN - NOW)
        assert.deepEqual(
          early.body.ran.map((r: { job: string }) => r.job),
          [
            'subscriptions',
            'no-shows',
            'queue-check-ins',
            'reminders',
            'attachment-uploads',
            'audit-retention',
            'fhir-export-expiry'
          ]
        )
        assert.equal(early.body.ran.find((r: { job: string }) => r.job === 'no-shows').changed, 0)
        assert.equal(
          (await api(clinic.scheduler.token).get(`/appointments/${booked.body.id}`)).body.status,
          'scheduled'
        )

        // One more minute, over the Feathers client on Socket.IO: the pass runs before the answer.
        const admins = socketClient(server.url)
        try {
          await admins.client.authenticate({ strategy: 'jwt', accessToken: admin })
          const moved = await admins.client.service('sandbox/clock').patch(null, { advanceMs: 2 * MIN })
          assert.equal(moved.now, MONDAY_9 + 47 * MIN)
          assert.equal(moved.ran.find((r: { job: string }) => r.job === 'no-shows')?.changed, 1)
          assert.deepEqual(await admins.client.service('sandbox/clock').find(), {
            now: MONDAY_9 + 47 * MIN,
            offsetMs: MONDAY_9 + 47 * MIN - NOW
          })
        } finally {
          admins.close()
        }
        const marked = (await api(clinic.scheduler.token).get(`/appointments/${booked.body.id}`)).body
        assert.equal(marked.status, 'no-show')
        assert.equal(marked['no-showBy'], 'system')
        assert.equal(marked['no-showAt'], MONDAY_9 + 47 * MIN)
        await waitUntil(
          () => seen.some((e) => e.data.id === booked.body.id),
          5000,
          "the patient's patched event"
        )
        assert.equal(seen.find((e) => e.data.id === booked.body.id)?.data.status, 'no-show')
      } finally {
        socket.close()
      }
    })

    it('moves every time-driven rule: free slots start after the moved time', async () => {
      const now = (await api(admin).get('/sandbox/clock')).body.now
      const slots = await api(clinic.scheduler.token).get(
        `/appointment-slots?facility=${clinic.id}&from=${MONDAY_9}&to=${MONDAY_9 + 24 * 60 * MIN}`
      )
      assert.equal(slots.status, 200, JSON.stringify(slots.body))
      assert.ok(slots.body.data.length > 0)
      // Monday 09:47 on the moved clock: the first free slot is 10:00, none of the morning's earlier ones.
      assert.equal(slots.body.data[0].start, MONDAY_9 + 60 * MIN)
      assert.ok(slots.body.data.every((slot: { start: number }) => slot.start >= now))
    })

    it('stamps what is created with its time: a medical record and an appointment', async () => {
      const now = (await api(admin).get('/sandbox/clock')).body.now
      assert.ok(now > NOW)
      const record = await api(clinic.owner.token).post('/medical-records', {
        ...validRecords.assessment,
        facility: clinic.id,
        patient: clinic.patient.account.id
      })
      assert.equal(record.status, 200, JSON.stringify(record.body))
      assert.equal(record.body.createdAt, now)
      const slots = await api(clinic.scheduler.token).get(
        `/appointment-slots?facility=${clinic.id}&from=${MONDAY_9}&to=${MONDAY_9 + 24 * 60 * MIN}`
      )
      const booked = await api(clinic.scheduler.token).post('/appointments', {
        facility: clinic.id,
        provider: clinic.provider.account.id,
        patient: clinic.patient.account.id,
        start: slots.body.data[1].start
      })
      assert.equal(booked.status, 201, JSON.stringify(booked.body))
      assert.equal(booked.body.createdAt, now)
    })

    it('is in the OpenAPI document: GET and PATCH at /sandbox/clock, no id', async () => {
      const doc = (await http(server.url, 'GET', '/openapi.json')).body
      assert.deepEqual(Object.keys(doc.paths['/sandbox/clock']).sort(), ['get', 'patch'])
      assert.equal(doc.paths['/sandbox/clock/{id}'], undefined)
    })

    it('never goes backwards: a `now` before the current time is refused after a move', async () => {
      const { now } = (await api(admin).get('/sandbox/clock')).body
      const back = await api(admin).patch('/sandbox/clock', { now: now - MIN })
      assert.equal(back.status, 400)
      assert.deepEqual(fieldsOf(back.body), ['now'])
      const still = await api(admin).patch('/sandbox/clock', { now })
      assert.equal(still.status, 200, 'moving to the current time is allowed (it runs what is due)')
      assert.equal(still.body.now, now)
    })

    it('keeps its offset in the store: a restart reads the moved time', async () => {
      const before = (await api(admin).get('/sandbox/clock')).body
      await server.close({ keep: true })
      server = await startServer({
        admin: ADMIN,
        sandboxClock: true,
        clock: { now: () => NOW },
        sessions: LONG_SESSIONS,
        dataDir: server.dataDir,
        ...(server.app.get('mongodb') ? { mongodb: server.app.get('mongodb') } : {})
      })
      assert.deepEqual((await api(admin).get('/sandbox/clock')).body, before)
    })
  })

  describe('without SANDBOX_CLOCK', () => {
    let server: TestServer
    before(async () => {
      server = await startServer({ admin: ADMIN })
    })
    after(() => server.close())

    it('is a 404 for every method', async () => {
      const login = await http(server.url, 'POST', '/authentication', {
        body: { strategy: 'local', ...ADMIN }
      })
      const api = restClient(server.url, login.body.accessToken)
      assert.equal((await api.get('/sandbox/clock')).status, 404)
      assert.equal((await api.patch('/sandbox/clock', { advanceMs: MIN })).status, 404)
    })
  })

  it('is refused in production: one line naming SANDBOX_CLOCK, exit 1', async () => {
    const failed = await startServerProcess(
      {
        NODE_ENV: 'production',
        DATA_DIR: tempDir('clinic-sandbox-clock-'),
        MONGODB_URL: '',
        REDIS_URL: '',
        AUTH_SECRET: randomBytes(32).toString('hex'),
        ALLOW_SANDBOX_PAYMENTS: 'true',
        SANDBOX_CLOCK: 'true'
      },
      60_000
    ).then(
      async (server) => {
        await server.kill()
        return null
      },
      (error: { code: number; output: string }) => error
    )
    assert.ok(failed, 'the server must not start')
    assert.equal(failed.code, 1, failed.output)
    assert.match(failed.output, /Refusing to start in production with SANDBOX_CLOCK=true/)
  })
})
