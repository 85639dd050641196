// Free slots through GET /appointment-slots (REST and Socket.IO) on a clock the test sets: windows in a non-UTC
// zone across a daylight-saving change, minimum notice, horizon, exceptions, pagination, who sees which
// schedules' slots, and the 31-day limit. The buffer after booked appointments is checked on the pure function
// (bookings arrive with /appointments).
import assert from 'node:assert/strict'
import { refusal, restClient, socketClient, startServer, type TestServer } from '../helpers/app'
import { fieldsOf } from '../helpers/billing'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { LONG_SESSIONS } from '../helpers/subscriptions'
import { freeSlots } from '../../src/appointments/slots'

const MIN = 60_000
const DAY = 86_400_000
// Friday 5 March 2027, 12:00 UTC; New York leaves standard time (UTC-5) for daylight time (UTC-4) on Sunday 14 March.
const NOW = Date.UTC(2027, 2, 5, 12, 0)
const iso = (ms: number) => new Date(ms).toISOString()

describe('appointment slots', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  const api = (token?: string) => restClient(server.url, token)

  before(async () => {
    // A clock that stands still at NOW, so that the minimum notice lands on the grid.
    server = await startServer({ clock: { now: () => NOW }, sessions: LONG_SESSIONS })
    clinic = await setupClinic(server.url)
  })
  after(() => server.close())

  /** Runs `check` with one schedule of the clinic's provider, removed afterwards. */
  const withSchedule = async (extra: Record<string, unknown>, check: (schedule: any) => Promise<void>) => {
    const schedule = await createSchedule(server.url, clinic, extra)
    try {
      await check(schedule)
    } finally {
      await api(clinic.scheduler.token).delete(`/schedules/${schedule.id}`)
    }
  }
  const slots = async (from: number, to: number, token = clinic.member.token, extra = '') => {
    const res = await api(token).get(
      `/appointment-slots?facility=${clinic.id}&provider=${clinic.provider.account.id}&from=${from}&to=${to}${extra}`
    )
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body
  }

  it('keeps a 09:00 New York window at 09:00 local across the daylight-saving change', async () => {
    await withSchedule(
      { timeZone: 'America/New_York', weekly: [{ day: 1, start: '09:00', end: '10:00' }] },
      async (schedule) => {
        const page = await slots(NOW, NOW + 14 * DAY)
        assert.deepEqual(
          page.data.map((s: any) => iso(s.start)),
          [
            '2027-03-08T14:00:00.000Z',
            '2027-03-08T14:15:00.000Z',
            '2027-03-08T14:30:00.000Z',
            '2027-03-08T14:45:00.000Z',
            '2027-03-15T13:00:00.000Z',
            '2027-03-15T13:15:00.000Z',
            '2027-03-15T13:30:00.000Z',
            '2027-03-15T13:45:00.000Z'
          ]
        )
        assert.equal(page.total, 8)
        assert.deepEqual(page.data[0], {
          provider: clinic.provider.account.id,
          schedule: schedule.id,
          start: Date.UTC(2027, 2, 8, 14, 0),
          end: Date.UTC(2027, 2, 8, 14, 15)
        })
      }
    )
  })

  it('keeps a window across the night of the change in Europe/Berlin, and every slot as long as slotMinutes', async () => {
    // Berlin moves from UTC+1 to UTC+2 on Sunday 28 March 2027 at 02:00.
    await withSchedule(
      { timeZone: 'Europe/Berlin', slotMinutes: 60, weekly: [{ day: 0, start: '01:00', end: '05:00' }] },
      async () => {
        const from = Date.UTC(2027, 2, 27)
        const page = await slots(from, from + 2 * DAY)
        // 01:00 CET = 00:00Z; wall-clock 05:00 CEST = 03:00Z: three hours of elapsed time, three slots.
        assert.deepEqual(
          page.data.map((s: any) => [iso(s.start), (s.end - s.start) / MIN]),
          [
            ['2027-03-28T00:00:00.000Z', 60],
            ['2027-03-28T01:00:00.000Z', 60],
            ['2027-03-28T02:00:00.000Z', 60]
          ]
        )
      }
    )
  })

  it('leaves out the past and the minimum notice', async () => {
    await withSchedule(
      { slotMinutes: 30, minNoticeMinutes: 60, weekly: [{ day: 5, start: '11:00', end: '14:00' }] },
      async () => {
        const page = await slots(NOW - DAY, NOW + DAY)
        // Now is 12:00 UTC; with an hour's notice the first slot is 13:00.
        assert.deepEqual(
          page.data.map((s: any) => iso(s.start)),
          ['2027-03-05T13:00:00.000Z', '2027-03-05T13:30:00.000Z']
        )
      }
    )
  })

  it('stops at the horizon', async () => {
    const everyDay = [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start: '09:00', end: '10:00' }))
    await withSchedule({ slotMinutes: 60, horizonDays: 2, weekly: everyDay }, async () => {
      const page = await slots(NOW, NOW + 10 * DAY)
      assert.deepEqual(
        page.data.map((s: any) => iso(s.start)),
        ['2027-03-06T09:00:00.000Z', '2027-03-07T09:00:00.000Z']
      )
    })
  })

  it('follows exceptions: a closed date has none, a changed date its own hours', async () => {
    await withSchedule(
      {
        slotMinutes: 60,
        weekly: [
          { day: 1, start: '09:00', end: '11:00' },
          { day: 2, start: '09:00', end: '11:00' }
        ],
        exceptions: [
          { date: '2027-03-08', closed: true },
          { date: '2027-03-09', start: '15:00', end: '16:00' },
          { date: '2027-03-10', start: '08:00', end: '09:00' }
        ]
      },
      async () => {
        const page = await slots(NOW, NOW + 6 * DAY)
        assert.deepEqual(
          page.data.map((s: any) => iso(s.start)),
          ['2027-03-09T15:00:00.000Z', '2027-03-10T08:00:00.000Z']
        )
      }
    )
  })

  it('paginates like every list, and answers over Socket.IO the same', async () => {
    await withSchedule({ weekly: [{ day: 1, start: '09:00', end: '12:00' }] }, async () => {
      const all = await slots(NOW, NOW + 7 * DAY)
      assert.equal(all.total, 12)
      const page = await slots(NOW, NOW + 7 * DAY, clinic.member.token, '&$limit=5&$skip=10')
      assert.deepEqual([page.total, page.limit, page.skip, page.data.length], [12, 5, 10, 2])
      assert.deepEqual(page.data, all.data.slice(10))
      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: clinic.member.token })
        const live = await socket.client
          .service('appointment-slots')
          .find({ query: { facility: clinic.id, from: NOW, to: NOW + 7 * DAY } })
        assert.deepEqual(live.data, all.data)
        const tooLong = await refusal(
          socket.client
            .service('appointment-slots')
            .find({ query: { facility: clinic.id, from: NOW, to: NOW + 32 * DAY } })
        )
        assert.equal(tooLong.code, 400)
        assert.deepEqual(fieldsOf(tooLong), ['to'])
      } finally {
        socket.close()
      }
    })
  })

  it('shows patients and strangers only the slots of schedules open to patient booking', async () => {
    await withSchedule({ weekly: [{ day: 1, start: '09:00', end: '10:00' }] }, async (schedule) => {
      assert.equal((await slots(NOW, NOW + 7 * DAY, clinic.patient.token)).total, 0)
      assert.equal((await slots(NOW, NOW + 7 * DAY, clinic.stranger.token)).total, 0)
      assert.equal((await slots(NOW, NOW + 7 * DAY, clinic.member.token)).total, 4)
      await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, { booking: 'patients' })
      assert.equal((await slots(NOW, NOW + 7 * DAY, clinic.patient.token)).total, 4)
      await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, { active: false })
      assert.equal((await slots(NOW, NOW + 7 * DAY, clinic.member.token)).total, 0)
    })
  })

  it('answers 400 naming the field: a range over 31 days, to not after from, a missing facility; 401 without a token', async () => {
    for (const [query, field] of [
      [`facility=${clinic.id}&from=${NOW}&to=${NOW + 31 * DAY + 1}`, 'to'],
      [`facility=${clinic.id}&from=${NOW}&to=${NOW}`, 'to'],
      [`from=${NOW}&to=${NOW + DAY}`, 'facility'],
      [`facility=${clinic.id}&from=soon&to=${NOW + DAY}`, 'from']
    ]) {
      const res = await api(clinic.member.token).get(`/appointment-slots?${query}`)
      assert.equal(res.status, 400, query)
      assert.deepEqual(fieldsOf(res.body), [field], JSON.stringify(res.body))
    }
    assert.equal(
      (
        await api(clinic.member.token).get(
          `/appointment-slots?facility=${clinic.id}&from=${NOW}&to=${NOW + 31 * DAY}`
        )
      ).status,
      200
    )
    assert.equal(
      (await api().get(`/appointment-slots?facility=${clinic.id}&from=${NOW}&to=${NOW + DAY}`)).status,
      401
    )
    assert.equal((await api(clinic.member.token).post('/appointment-slots', {})).status, 405)
  })

  it('keeps the buffer after each booked appointment and after each new slot free, and only the provider’s own (pure function)', () => {
    const schedule = {
      id: 's1',
      provider: 'p1',
      timeZone: 'UTC',
      weekly: [{ day: 1, start: '09:00', end: '11:00' }],
      exceptions: [],
      slotMinutes: 15,
      bufferMinutes: 20,
      horizonDays: 60,
      minNoticeMinutes: 0,
      active: true
    }
    const nine = Date.UTC(2027, 2, 8, 9, 0)
    const booked = [
      { provider: 'p1', start: nine + 15 * MIN, end: nine + 30 * MIN },
      { provider: 'other', start: nine + 60 * MIN, end: nine + 75 * MIN }
    ]
    const free = freeSlots([schedule], booked, NOW, NOW, NOW + 7 * DAY).map((s) => (s.start - nine) / MIN)
    // 09:15 is booked; the 20 minutes after it (to 09:50) take 09:30 and 09:45; 09:00 would leave no 20 minutes
    // before it (its own buffer after it); 10:00 on are free.
    assert.deepEqual(free, [60, 75, 90, 105])
    // A booked appointment keeps the buffer of its own schedule when it is the larger one.
    const longer = [{ ...booked[0], bufferAfter: 50 * MIN }]
    const afterLonger = freeSlots([schedule], longer, NOW, NOW, NOW + 7 * DAY).map(
      (s) => (s.start - nine) / MIN
    )
    assert.deepEqual(afterLonger, [90, 105])
  })
})
