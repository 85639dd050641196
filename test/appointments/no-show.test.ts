// The no-show pass on a clock the test moves: a scheduled appointment more than `appointments.noShowAfterMs` past
// its end becomes a no-show by `system` (announced over Socket.IO, its slot released); one not yet that late, and
// one checked in, stay as they are.
import assert from 'node:assert/strict'
import {
  recordEvents,
  restClient,
  socketClient,
  startServer,
  waitUntil,
  type TestServer
} from '../helpers/app'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { LONG_SESSIONS } from '../helpers/subscriptions'

const MIN = 60_000
const NOW = Date.UTC(2027, 2, 5, 12, 0)
const MONDAY_9 = Date.UTC(2027, 2, 8, 9, 0)

describe('appointments no-show pass', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  let now = NOW
  const api = (token?: string) => restClient(server.url, token)

  before(async () => {
    server = await startServer({
      clock: { now: () => now },
      sessions: LONG_SESSIONS,
      appointments: { noShowAfterMs: 30 * MIN, jobIntervalMs: 40 }
    })
    clinic = await setupClinic(server.url)
    await createSchedule(server.url, clinic)
  })
  after(() => server.close())

  it('marks scheduled appointments more than 30 minutes past their end no-show, by system, once', async () => {
    const book = async (start: number) => {
      const res = await api(clinic.scheduler.token).post('/appointments', {
        facility: clinic.id,
        provider: clinic.provider.account.id,
        patient: clinic.patient.account.id,
        start
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      return res.body
    }
    const [missed, later, arrived] = await Promise.all([
      book(MONDAY_9),
      book(MONDAY_9 + 30 * MIN),
      book(MONDAY_9 + 15 * MIN)
    ])
    now = MONDAY_9
    assert.equal(
      (await api(clinic.scheduler.token).patch(`/appointments/${arrived.id}`, { status: 'checked-in' }))
        .status,
      200
    )
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'jwt', accessToken: clinic.patient.token })
      const seen = recordEvents(socket.client, 'appointments', ['patched'])
      // `missed` ended at 09:15: at 09:46 it is 31 minutes past; `later` ended at 09:45, only a minute ago.
      now = MONDAY_9 + 46 * MIN
      await waitUntil(
        async () => {
          const res = await api(clinic.scheduler.token).get(`/appointments/${missed.id}`)
          return res.body.status === 'no-show'
        },
        5000,
        'the no-show'
      )
      const marked = (await api(clinic.scheduler.token).get(`/appointments/${missed.id}`)).body
      assert.equal(marked['no-showBy'], 'system')
      assert.equal(marked['no-showAt'], now)
      await waitUntil(() => seen.some((e) => e.data.id === missed.id), 5000, 'the patched event')
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.equal(
        (await api(clinic.scheduler.token).get(`/appointments/${later.id}`)).body.status,
        'scheduled'
      )
      assert.equal(
        (await api(clinic.scheduler.token).get(`/appointments/${arrived.id}`)).body.status,
        'checked-in'
      )
      assert.equal(marked.statusHistory.filter((h: any) => h.status === 'no-show').length, 1, 'marked once')
    } finally {
      socket.close()
    }
  })
})
