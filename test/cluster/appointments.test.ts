// Booking races across two instances on one MongoDB and one Redis (MONGODB_URL when set, else the MongoDB
// emulator started here, which enforces no unique index; redis-server started here): each instance has its own
// in-process lock, so only the Redis lease of the provider keeps their bookings from overlapping. Driven over
// HTTP and Socket.IO as clients use the instances behind a load balancer.
import assert from 'node:assert/strict'
import { restClient, socketClient, type TestServer } from '../helpers/app'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { startSharedStore, type SharedStore } from '../helpers/cluster'
import { LONG_SESSIONS } from '../helpers/subscriptions'

const MIN = 60_000
const HOUR = 60 * MIN
// Friday 5 March 2027, 12:00 UTC; the bookings are on Monday 8 (weekday schedule) and Saturday 13 March.
const NOW = Date.UTC(2027, 2, 5, 12, 0)
const MONDAY_9 = Date.UTC(2027, 2, 8, 9, 0)
const SAT_9 = Date.UTC(2027, 2, 13, 9, 0)
const SAT_14 = Date.UTC(2027, 2, 13, 14, 0)

describe('appointments on two instances', function () {
  this.timeout(60000)
  let store: SharedStore
  let a: TestServer
  let b: TestServer
  let clinic: ClinicFixture
  let quarter: any
  let third: any
  const sockets: { close(): void }[] = []

  before(async () => {
    store = await startSharedStore('booking')
    ;[a, b] = await store.startPair({ clock: { now: () => NOW }, sessions: LONG_SESSIONS })
    clinic = await setupClinic(a.url)
    await createSchedule(a.url, clinic)
    // Saturday: a 15-minute and a 20-minute grid in the morning; in the afternoon 5-minute slots that each keep
    // two hours after them free, so any two bookings of the afternoon overlap.
    quarter = await createSchedule(b.url, clinic, { weekly: [{ day: 6, start: '09:00', end: '12:00' }] })
    third = await createSchedule(b.url, clinic, {
      weekly: [{ day: 6, start: '09:00', end: '12:00' }],
      slotMinutes: 20
    })
    await createSchedule(a.url, clinic, {
      weekly: [{ day: 6, start: '14:00', end: '16:00' }],
      slotMinutes: 5,
      bufferMinutes: 120
    })
  })
  after(async () => {
    sockets.forEach((socket) => socket.close())
    await store?.stop()
  })

  const booking = (start: number) => ({
    facility: clinic.id,
    provider: clinic.provider.account.id,
    patient: clinic.patient.account.id,
    start
  })
  const connect = async (url: string) => {
    const socket = socketClient(url)
    sockets.push(socket)
    await socket.client.authenticate({ strategy: 'jwt', accessToken: clinic.scheduler.token })
    return socket.client
  }
  /** Books `start` on `server`: over REST, or over Socket.IO with `client`; the status the caller sees. */
  const attempt = (server: TestServer, start: number, client?: any): Promise<number> =>
    client
      ? client
          .service('appointments')
          .create(booking(start))
          .then(
            () => 201,
            (error: any) => error.code
          )
      : restClient(server.url, clinic.scheduler.token)
          .post('/appointments', booking(start))
          .then((res) => res.status)
  /** Twenty bookings at once, alternating between the instances, half of each over Socket.IO. */
  const race = async (starts: number[]) => {
    const clients = await Promise.all(
      starts.map((_, i) => (i % 4 < 2 ? connect(i % 2 ? b.url : a.url) : null))
    )
    return Promise.all(starts.map((start, i) => attempt(i % 2 ? b : a, start, clients[i] ?? undefined)))
  }
  const storedBetween = async (from: number, to: number) =>
    (
      await restClient(a.url, clinic.scheduler.token).get(
        `/appointments?start[$gte]=${from}&start[$lt]=${to}&$limit=100`
      )
    ).body.data

  it('of twenty simultaneous bookings of one slot split across the two instances, exactly one is a 201', async () => {
    const outcomes = await race(Array(20).fill(MONDAY_9))
    assert.equal(outcomes.filter((code) => code === 201).length, 1, `outcomes: ${outcomes.join(',')}`)
    assert.deepEqual(
      outcomes.filter((code) => code !== 201),
      Array(19).fill(409)
    )
    assert.equal((await storedBetween(MONDAY_9, MONDAY_9 + 1)).length, 1)
  })

  it('of twenty simultaneous bookings of different but overlapping starts across the two instances, one is a 201', async () => {
    const outcomes = await race(Array.from({ length: 20 }, (_, i) => SAT_14 + i * 5 * MIN))
    assert.equal(outcomes.filter((code) => code === 201).length, 1, `outcomes: ${outcomes.join(',')}`)
    assert.deepEqual(
      outcomes.filter((code) => code !== 201),
      Array(19).fill(409)
    )
    assert.equal((await storedBetween(SAT_14, SAT_14 + 2 * HOUR)).length, 1)
  })

  it('of two overlapping bookings on two grids sent at once to the two instances, one is a 201', async () => {
    const [onA, onB] = await Promise.all([connect(a.url), connect(b.url)])
    // Each hour of the morning: 15-minute slot at :15 (to :30) on one instance, 20-minute slot at :20 on the other.
    const pairs = [0, 1, 2].map((hour) => [SAT_9 + hour * HOUR + 15 * MIN, SAT_9 + hour * HOUR + 20 * MIN])
    const outcomes = await Promise.all(
      pairs.map(([quarterStart, thirdStart], i) =>
        Promise.all([
          attempt(a, quarterStart, i === 1 ? onA : undefined),
          attempt(b, thirdStart, i === 2 ? onB : undefined)
        ])
      )
    )
    for (const pair of outcomes)
      assert.deepEqual([...pair].sort(), [201, 409], `outcomes: ${outcomes.join(' ')}`)
    const stored = await storedBetween(SAT_9, SAT_9 + 3 * HOUR)
    assert.equal(stored.length, 3)
    for (const appointment of stored)
      assert.equal(
        appointment.schedule,
        appointment.end - appointment.start === 15 * MIN ? quarter.id : third.id
      )
  })
})
